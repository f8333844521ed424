"""LLM access: types, errors, the OpenAI-compatible client, retry policy and circuit breaker."""
