"""HTTP access: the chat API (SSE), the web page, health and metrics (FastAPI; built in bot/web.py)."""
