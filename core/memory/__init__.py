"""Memory: per-chat window + incremental summary, per-person facts and profile, account linking.

Wiring (bot/wiring.py)::

    memory = build_memory(engine, llm, embedder, MemoryConfig.from_settings(settings.memory))
    register_memory(memory, router=router, toolset=tools)
    service = ChatService(..., context=memory.context, ...)
    ...
    await memory.aclose()  # on shutdown: let scheduled summaries finish
"""

from core.memory.setup import Memory, MemoryConfig, build_memory, register_memory

__all__ = ["Memory", "MemoryConfig", "build_memory", "register_memory"]
