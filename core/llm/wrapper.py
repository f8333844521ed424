"""The one base for policies around the LLM port (pydantic-ai's `WrapperModel`).

The port's signature (`complete` / `stream` with messages, tools, temperature, max_tokens) is
written here once. A policy (breaker, bulkhead, timing) subclasses :class:`WrapperLLM` and overrides
only what it changes: `around_complete` and/or `around_stream`, which receive the call as one
:class:`LLMCall` value and pass it on with `call.complete(self.inner)` / `call.stream(self.inner)`.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from core.llm.types import LLM, Completion, Message, StreamEvent


@dataclass(frozen=True)
class LLMCall:
    """One call of the LLM port, as a value a policy can pass on."""

    messages: list[Message]
    tools: list[dict] | None = None
    temperature: float | None = None
    max_tokens: int | None = None

    async def complete(self, llm: LLM) -> Completion:
        return await llm.complete(
            self.messages, tools=self.tools, temperature=self.temperature, max_tokens=self.max_tokens
        )

    def stream(self, llm: LLM) -> AsyncGenerator[StreamEvent, None]:
        return llm.stream(self.messages, tools=self.tools, temperature=self.temperature, max_tokens=self.max_tokens)


class WrapperLLM:
    """Implements the LLM port by passing every call to `inner`; subclasses change what they need.

    Args:
        inner: the wrapped LLM (the client, or another policy).
    """

    def __init__(self, inner: LLM):
        self.inner = inner

    async def complete(
        self,
        messages: list[Message],
        *,
        tools: list[dict] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        return await self.around_complete(LLMCall(messages, tools, temperature, max_tokens))

    async def stream(
        self,
        messages: list[Message],
        *,
        tools: list[dict] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> AsyncGenerator[StreamEvent, None]:
        async with closing(self.around_stream(LLMCall(messages, tools, temperature, max_tokens))) as events:
            async for event in events:
                yield event

    async def around_complete(self, call: LLMCall) -> Completion:
        """Override to wrap a completion; the default passes it on."""
        return await call.complete(self.inner)

    def around_stream(self, call: LLMCall) -> AsyncGenerator[StreamEvent, None]:
        """Override to wrap a stream; the default passes it on."""
        return call.stream(self.inner)

    @property
    def state(self) -> str | None:
        """The circuit breaker's state somewhere inside (closed/open/half_open), if there is one."""
        return getattr(self.inner, "state", None)

    async def aclose(self) -> None:
        """Close the inner LLM's resources, if it has any."""
        aclose = getattr(self.inner, "aclose", None)
        if aclose is not None:
            await aclose()


@asynccontextmanager
async def closing(events: AsyncIterator[Any]) -> AsyncIterator[AsyncIterator[Any]]:
    """Close a stream when the caller stops early (so its HTTP response is released).

    Not `contextlib.aclosing`: that needs an `aclose`, and an `LLM.stream` is any AsyncIterator
    (test doubles return plain iterators without one)."""
    try:
        yield events
    finally:
        aclose = getattr(events, "aclose", None)
        if aclose is not None:
            await aclose()
