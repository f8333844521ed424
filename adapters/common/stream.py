"""Platform-neutral streaming of one reply by editing one message, within a per-chat budget.

:class:`StreamingReply` reads the engine's :mod:`core.events` stream and drives a
:class:`MessageSink` (one platform message thread: send, edit, typing). Guarantees:

* at most one request in flight for the message, and each carries the newest text;
* every request (send, edit, typing) first takes a slot from the chat's :class:`OutboundBudget`,
  which is shared by every reply streaming in that chat (and, with a shared budget, by every process);
* on flood control (:class:`RateLimited`) the chat pauses until the deadline; intermediate edits
  are skipped meanwhile, and the final text is still delivered, exactly, split into parts that fit;
* a final part that fails transiently (:class:`TransientDelivery`: the platform's 5xx, a network
  error) is retried with backoff, pausing the chat's budget between tries; ``StreamStats.delivered``
  says whether every final part went out (the adapter reports it to the engine);
* ``TextReset`` discards the streamed text, ``ToolStep`` refreshes "typing";
* a ``Notice`` ends the reply when the stream ends after it; a notice followed by more events
  (e.g. "no language model configured" before a retrieval-only answer) stays on top of the reply;
* a reply that is cancelled (the engine stream ends without a final event, or raises
  ``CancelledError`` itself) ends with the text shown so far plus "（已停止）".

Clock and sleep are injectable, so tests drive time without sleeping. The sink's protocol and the
stats live in adapters/common/sink.py; what the engine is told about the reply (where it is shown,
whether it arrived, the repair of frozen messages) in adapters/common/lifecycle.py.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterable, Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import structlog

from adapters.common.budget import BudgetRegistry, Clock, OutboundBudget, RateLimited, Sleep, TransientDelivery
from adapters.common.render import FootnoteLink, compose, stopped, with_notice
from adapters.common.sink import MessageSink, StreamStats, Withdrawn
from core.events import FinalReply, Notice, ReplyEvent, TextDelta, TextReset, ToolStep
from core.texts import say

log = structlog.get_logger(__name__)

__all__ = [
    "BudgetRegistry",
    "MessageSink",
    "OutboundBudget",
    "RateLimited",
    "StreamStats",
    "StreamingReply",
    "TransientDelivery",
    "Withdrawn",
]


@dataclass(frozen=True)
class _Outcome:
    kind: str
    text: str
    extra: Mapping | None = None


class StreamingReply:
    """Streams one engine reply into one message, then delivers the final text in parts.

    Args:
        sink: the platform side of this reply.
        budget: the chat's outbound budget (shared with other replies in the chat).
        trace_id: put in logs and in the error apology.
        placeholder: preview shown once typing was sent but no text has arrived yet.
        placeholder_first: the placeholder, not "typing", is the first request (no "typing" right after it).
        typing_every: seconds between "typing" refreshes while the model is thinking.
        first_typing_after: grace before the first "typing", so instant answers skip it.
        max_final_attempts: tries per final part when rate limited or failing transiently.
        retry_base_s: the first backoff after a transient failure of a final part (doubling, max 8 s).
        on_shown: awaited once with the handle of the reply's first message, as soon as it exists
            (the adapter tells the engine where the reply is shown, to close it after a crash).
        on_part: awaited with (index, handle) as each final part of an answer went out (a reaction
            on any part of a split answer finds the reply); not for a notice, which no reply row keeps.
        clock: monotonic clock; sleep: coroutine function used to wait.
    """

    def __init__(
        self,
        sink: MessageSink,
        budget: OutboundBudget,
        *,
        trace_id: str = "",
        placeholder: str = "…",
        placeholder_first: bool = False,
        typing_every: float = 4.5,
        first_typing_after: float = 0.3,
        max_final_attempts: int = 6,
        retry_base_s: float = 0.5,
        on_shown: Callable[[Any], Awaitable[None]] | None = None,
        on_part: Callable[[int, Any], Awaitable[None]] | None = None,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        footnote_link: FootnoteLink | None = None,
    ) -> None:
        self.sink, self.budget, self.trace_id = sink, budget, trace_id
        self.footnote_link = footnote_link  # footnotes link to the reading room (adapters/telegram/reading.py)
        self.placeholder, self.typing_every, self.first_typing_after = placeholder, typing_every, first_typing_after
        self.max_final_attempts, self.retry_base_s = max_final_attempts, retry_base_s
        self._on_shown, self._on_part, self.placeholder_first = on_shown, on_part, placeholder_first
        self.clock, self.sleep = clock, sleep
        self.stats = StreamStats(started_at=clock())
        self._text = ""
        self._headers: list[str] = []
        self._pending: Notice | None = None
        self._shown: str | None = None
        self._handle: Any = None
        self._thinking = True
        self._typing_due = False
        self._typing_sent = False
        self._preview_failures = 0
        self._wake = asyncio.Event()
        self._closed = asyncio.Event()

    # ------------------------------------------------------------------ public

    async def run(self, events: AsyncIterable[ReplyEvent]) -> StreamStats:
        """Consume ``events`` to the end, streaming previews, then deliver the final text."""
        iterator = aiter(events)
        pump = asyncio.create_task(self._pump())
        try:
            outcome = await self._consume(iterator)
        except BaseException:
            pump.cancel()
            raise
        self._closed.set()
        self._wake.set()
        withdraw = getattr(self.sink, "withdraw", None)
        if withdraw is not None:
            withdraw()
        await pump
        try:
            await self._deliver(outcome)
        finally:
            await self._drain(iterator)
        return self.stats

    # ------------------------------------------------------------------ events

    async def _consume(self, events) -> _Outcome:
        try:
            async for event in events:
                outcome = self._apply(event)
                if outcome is not None:
                    return outcome
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
            return self._stopped()
        except Exception:
            log.exception("engine_stream_failed", trace_id=self.trace_id)
            return _Outcome("error", with_notice(self._body(), say("ERROR", None, trace=self.trace_id)))
        if self._pending is not None:  # the stream ended on a notice: that is the answer
            return self._notice_outcome(self._pending)
        return self._stopped()

    def _apply(self, event: ReplyEvent) -> _Outcome | None:
        if self._pending is not None:  # more followed the notice: it was informational, keep it on top
            self._headers.append(self._pending.text.strip())
            self._pending = None
        if isinstance(event, TextDelta):
            self._text += event.text
            self._thinking = False
        elif isinstance(event, TextReset):
            self._text = ""
        elif isinstance(event, ToolStep):
            if event.phase == "start":
                self._thinking = self._typing_due = True
        elif isinstance(event, FinalReply):
            return _Outcome("final", "\n\n".join([*self._headers, compose(event, self.footnote_link)]))
        elif isinstance(event, Notice):
            self._pending = event
        self._wake.set()
        return None

    def _body(self) -> str:
        """What the message shows: informational notices, then the streamed text."""
        return "\n\n".join(part for part in (*self._headers, self._text) if part)

    def _notice_outcome(self, notice: Notice) -> _Outcome:
        return _Outcome("notice", with_notice(self._body(), notice.text), notice.extra or None)

    def _stopped(self) -> _Outcome:
        if self._body() or self._handle is not None:
            return _Outcome("stopped", stopped(self._body()))
        return _Outcome("empty", "")

    async def _drain(self, events) -> None:
        """Let the engine finish its work after the final event (storing, releasing locks)."""
        try:
            async for event in events:
                log.debug("event_after_final", trace_id=self.trace_id, kind=event.kind)
        except Exception:
            log.exception("engine_stream_failed_after_final", trace_id=self.trace_id)

    # ------------------------------------------------------------------ previews

    async def _pump(self) -> None:
        if await self._wait(self._closed, self.first_typing_after):
            return
        self._typing_due = True
        while not self._closed.is_set():
            if not self._work_pending():
                timeout = self.typing_every if self._thinking else None
                woke = await self._wait(self._wake, timeout)
                self._wake.clear()
                if not woke and self._thinking:
                    self._typing_due = True
                continue
            delay = await self.budget.claim(urgent=False)
            if delay > 0:
                await self._wait(self._closed, delay)
            else:
                await self._step()

    def _desired(self) -> str | None:
        if self._preview_failures >= 3:
            return None
        body = self._body()
        if body:
            return self.sink.fit_preview(body)
        if self._handle is not None or self._typing_sent or self.placeholder_first:
            return self.placeholder or None
        return None

    def _work_pending(self) -> bool:
        desired = self._desired()
        return (desired is not None and desired != self._shown) or self._typing_due

    async def _step(self) -> None:
        desired = self._desired()
        if desired is not None and desired != self._shown:
            await self._preview(desired)
        elif self._typing_due:
            self._typing_due = False
            self._typing_sent = True
            self.stats.typings += 1
            await self._guard(self.sink.typing())

    async def _preview(self, text: str) -> None:
        first = self._handle is None
        if first:
            handle = await self._guard(self.sink.send(text))
            self.stats.sends += 1
        else:
            handle = await self._guard(self.sink.edit(self._handle, text))
            self.stats.edits += 1
        if handle is _FAILED:
            self._preview_failures += 1
            return
        self._preview_failures = 0
        if first and handle is not None:
            await self._report_shown(handle)
        if handle is not None:
            self._handle = handle
        elif first:
            self._handle = True  # the sink keeps its own handle
        self._shown = text
        if not self._thinking or (first and self.placeholder_first and text == self.placeholder):
            self._typing_due = False
        if self.stats.first_visible_at is None and self._text:
            self.stats.first_visible_at = self.clock()

    async def _guard(self, request: Awaitable[Any]) -> Any:
        """Run one preview request; flood control pauses the chat, other errors are logged."""
        try:
            result = await request
        except Withdrawn:
            await self.budget.done(sent=False)
            return _FAILED
        except RateLimited as exc:
            self.stats.rate_limited += 1
            await self.budget.done(pause=exc.retry_after)
            log.warning("rate_limited", trace_id=self.trace_id, retry_after=exc.retry_after)
        except Exception as exc:
            self.stats.failures += 1
            await self.budget.done()
            log.warning("preview_failed", trace_id=self.trace_id, error=type(exc).__name__)
        else:
            await self.budget.done()
            return result
        return _FAILED

    async def _report_shown(self, handle: Any) -> None:
        on_shown, self._on_shown = self._on_shown, None
        if on_shown is None:
            return
        try:
            await on_shown(handle)
        except Exception as exc:  # a missed note only means no correction after a crash
            log.warning("shown_not_recorded", trace_id=self.trace_id, error=type(exc).__name__)

    async def _report_part(self, index: int, handle: Any) -> None:
        if self._on_part is None or handle is None or self.stats.outcome not in ("final", "stopped"):
            return
        try:
            await self._on_part(index, handle)
        except Exception as exc:  # a missed note only means a reaction on that part is not feedback
            log.warning("part_not_recorded", trace_id=self.trace_id, part=index, error=type(exc).__name__)

    async def _wait(self, event: asyncio.Event, timeout: float | None) -> bool:
        """Wait for ``event`` or ``timeout`` seconds (via the injected sleep); True if it was set."""
        if event.is_set():
            return True
        if timeout is None:
            await event.wait()
            return True
        waiter = asyncio.ensure_future(event.wait())
        sleeper = asyncio.ensure_future(self.sleep(timeout))
        try:
            await asyncio.wait({waiter, sleeper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
            sleeper.cancel()
        return event.is_set()

    # ------------------------------------------------------------------ final

    async def _deliver(self, outcome: _Outcome) -> None:
        self.stats.outcome, self.stats.final_text = outcome.kind, outcome.text
        parts = self.sink.split_final(outcome.text) if outcome.text.strip() else []
        for i, part in enumerate(parts):
            extra = outcome.extra if i == len(parts) - 1 else None
            if i == 0 and self._handle is not None:
                handle = self._handle
                result = await self._final_request(partial(self.sink.edit, handle, part, final=True, extra=extra))
                self.stats.edits += 1
            else:
                result = await self._final_request(partial(self.sink.send, part, final=True, extra=extra))
                self.stats.sends += 1
                if i == 0 and self._handle is None and result is not None:
                    await self._report_shown(result)
            self.stats.handles.append(result)
            await self._report_part(i, result)
            if self.stats.first_visible_at is None:
                self.stats.first_visible_at = self.clock()
        self.stats.final_at = self.clock()
        self.stats.delivered = True

    async def _final_request(self, make: Callable[[], Awaitable[Any]]) -> Any:
        last: Exception | None = None
        for attempt in range(self.max_final_attempts):
            await self.budget.acquire()
            pause = 0.0
            try:
                return await make()
            except RateLimited as exc:
                last, pause = exc, exc.retry_after
                self.stats.rate_limited += 1
                log.warning("rate_limited_final", trace_id=self.trace_id, retry_after=exc.retry_after)
            except TransientDelivery as exc:
                last, pause = exc, min(self.retry_base_s * 2**attempt, 8.0)
                self.stats.final_retries += 1
                log.warning(
                    "final_delivery_retry", trace_id=self.trace_id, attempt=attempt + 1, error=str(exc), wait_s=pause
                )
            finally:
                await self.budget.done(pause=pause)
        if isinstance(last, TransientDelivery):
            raise last
        raise RateLimited(self.budget.delay())


_FAILED = object()
