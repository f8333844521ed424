"""The one base for policies in front of an engine (as core/llm/wrapper.py is for the LLM port).

The `Engine` port's methods (core/ports.py) are written here once and pass every call to `inner`.
A policy (the digest's tap, the metrics' observer) subclasses :class:`EngineWrapper` and overrides
only what it changes. The base subclasses the protocol itself, so mypy checks every signature
against the port and refuses to build a wrapper that misses one.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from core.events import ReplyEvent
from core.ports import AdminCheck, Engine, LookupResult
from core.shown_in import ShownIn
from core.types import Incoming


class EngineWrapper(Engine):
    """Implements the `Engine` port by passing every call to `inner`; subclasses change what they need.

    Args:
        inner: the wrapped engine (the ChatService, or another wrapper).
    """

    def __init__(self, inner: Engine) -> None:
        self.inner = inner

    def handle(self, incoming: Incoming) -> AsyncGenerator[ReplyEvent, None]:
        return self.inner.handle(incoming)

    def commands(self) -> list[tuple[str, str, str]]:
        return self.inner.commands()

    def skills(self) -> list[tuple[str, str]]:
        return self.inner.skills()

    def models(self) -> list[str]:
        return self.inner.models()

    async def record_shown(self, trace_id: str, where: ShownIn, part: int | None = None) -> bool:
        return await self.inner.record_shown(trace_id, where, part)

    async def record_delivery(self, trace_id: str, delivered: bool) -> None:
        await self.inner.record_delivery(trace_id, delivered)

    async def record_feedback(
        self, platform: str, account: str, reaction: str, *, where: ShownIn | None = None, trace_id: str | None = None
    ) -> str:
        return await self.inner.record_feedback(platform, account, reaction, where=where, trace_id=trace_id)

    def take_interrupted(self, platform: str) -> list[ShownIn]:
        return self.inner.take_interrupted(platform)

    async def look_up(self, platform: str, user_id: str, query: str, k: int = 10) -> LookupResult:
        return await self.inner.look_up(platform, user_id, query, k)

    def register_admin_check(self, platform: str, check: AdminCheck) -> None:
        self.inner.register_admin_check(platform, check)
