"""Data the bot ships or fetches: corpus manifest and fetch (data.corpus), prompt templates (YAML)."""
