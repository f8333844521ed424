"""The reply task: one answer, run in its own task so /cancel (or a consumer leaving) can stop it.

`ReplyTask.stream(turn, skill)` starts the producer and passes its events on. The reply's row
(status "streaming": it survives a crash) is stored with its question, before the reply starts
(core/engine/service.py); the producer builds the context, runs the
guarded fallback ladder (core/engine/output_guard.py) and stores the answer; a cancelled reply stores the text
shown so far as "cancelled". The final text is stored while its row is still "streaming" (pending
delivery): the row gets its final status only once the consumer took the FinalReply and asked for
more, so a final text that never reached the person is never recorded "ok" (core/engine/watch.py
confirms it). Usage is recorded (the footnotes are stored with the text); memory updates run in the background.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Coroutine, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

import structlog

from core.engine.admission import RunningReplies
from core.engine.ladder import LadderRequest, LevelStart
from core.engine.notices import notice
from core.engine.output_guard import GuardedLadder, Outcome, ReplyProgress
from core.engine.watch import ReplyWatch
from core.events import Citation, FinalReply, ReplyEvent, TextDelta, TextReset
from core.language.text import reply_language
from core.llm.choice import chat_model
from core.llm.errors import LLMConfigError
from core.llm.types import Usage
from core.logging import current_trace_id
from core.ports import ContextBuilder, Guard, Turn
from core.skills import Skill
from core.storage.models import ReplyStats
from core.storage.repos import Storage
from core.storage.status import STREAMING
from core.texts import say
from core.tools.tool import ToolContext

log = structlog.get_logger(__name__)

_END = object()
CLEANUP_TIMEOUT_S = 5.0
"""The longest a reply's clean-up write (store the cancelled text, drop the started row) may hold
the end of its stream when the database does not answer."""


class ReplyTask:
    """Runs replies, each in its own task, and the background work they leave behind.

    Args:
        storage: repositories over the database (the reply's row, usage, cited passages).
        context: builds the model input and learns from finished replies (core/memory).
        guard: hardens the system prompt and records usage.
        replies: the fallback ladder behind the output guard.
        running: one reply in flight per person; each reply's task is attached to its person.
        watch: renews the running replies' rows and confirms them once delivered.
        clock: monotonic clock for latency figures.
    """

    def __init__(
        self,
        *,
        storage: Storage,
        context: ContextBuilder,
        guard: Guard,
        replies: GuardedLadder,
        running: RunningReplies,
        watch: ReplyWatch,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._storage = storage
        self._context = context
        self._guard = guard
        self._replies = replies
        self._running = running
        self._watch = watch
        self._clock = clock
        self._background: set[asyncio.Task] = set()

    async def drain(self, timeout_s: float = 5.0) -> None:
        """Wait (bounded) for background memory updates to finish; call on shutdown."""
        if self._background:
            await asyncio.wait(set(self._background), timeout=timeout_s)

    async def stream(self, turn: Turn, skill: Skill, model: str | None = None) -> AsyncGenerator[ReplyEvent, None]:
        """Run the reply in its own task (so /cancel can stop it) and pass its events on.

        `model`: the chat's model (core/llm/choice.py), set in that task's own context so every LLM
        call of this reply, and of the background work it leaves, goes to it (None: the default).
        The reply's "streaming" row is already stored, with its question (`MessageRepo.add(reply=True)`).
        A cancelled reply yields nothing more; the consumer leaving early cancels the task too.
        """
        queue: asyncio.Queue = asyncio.Queue()
        progress = ReplyProgress()
        trace_id = turn.incoming.trace_id
        task = asyncio.create_task(self._produce(turn, skill, queue, progress, model))
        self._running.attach(turn.person_id, task)
        self._watch.begin(trace_id)
        try:
            while (event := await _next(queue, task)) is not _END and not task.cancelling():
                yield event
                if isinstance(event, FinalReply) and progress.status is not None:
                    await self._watch.confirm(trace_id, progress.status)  # it was delivered: now it is "ok"
            await asyncio.wait({task})
        finally:
            self._watch.end(trace_id)
            if not task.done():
                task.cancel()
                await asyncio.wait({task})
            if not progress.begun:  # cancelled before its first step: its row is dropped here
                await self._cleanup("discard", self._storage.replies.discard(trace_id))
        if not task.cancelled() and (error := task.exception()) is not None:
            raise error

    async def _produce(
        self,
        turn: Turn,
        skill: Skill,
        queue: asyncio.Queue,
        progress: ReplyProgress,
        model: str | None = None,
    ) -> None:
        """The reply: context, the guarded ladder, storing; its events go to `queue`, then _END.

        The final text is stored while its row is still "streaming" (pending delivery): the row gets
        its final status (`progress.status`) only once the consumer took the FinalReply and asked for
        more (`stream`), so a final text that never reached the person is never recorded "ok".
        """

        started = self._clock()
        first: list[float] = []  # when the first text was shown

        def emit(event: ReplyEvent | LevelStart) -> None:
            progress.see(event)
            if isinstance(event, TextDelta) and not first:
                first.append(self._clock())
            if not isinstance(event, LevelStart):
                queue.put_nowait(event)

        if model is not None:
            chat_model.set(model)  # this task's context only: this chat's calls, nobody else's
        progress.begun = True
        try:
            deadline = self._replies.deadline()
            if not self._replies.has_llm and await self._storage.chats.claim_no_llm_notice(turn.incoming.chat_key):
                emit(notice(say("NO_LLM", None), "no_llm"))
            messages = await self._context.build(turn, self._guard.harden(skill.system_prompt))
            request = LadderRequest(messages, skill, turn.incoming.text, _tool_context(turn), deadline)
            outcome = await self._run_ladder(request, progress, emit)
            if outcome is not None:
                await self._finish(turn, outcome, progress, _Timing(started, first[0] if first else None, model))
                progress.finished = True
                answer = outcome.answer
                emit(FinalReply(answer.text, answer.citations, answer.level, turn.incoming.trace_id))
        except asyncio.CancelledError:
            if not progress.finished:
                log.info("reply_cancelled", fallback_level=progress.level, chars=len(progress.text))
                if progress.text:
                    progress.finished = await self._cleanup(
                        "cancelled", self._store_reply(turn, progress.text, progress.level, "cancelled")
                    )
            raise
        finally:
            try:
                if not progress.finished:  # no answer stored: drop the started row (a cancel stored its own)
                    await self._cleanup("discard", self._storage.replies.discard(turn.incoming.trace_id))
            finally:  # whatever storage did: the consumer ends, the person is released
                queue.put_nowait(_END)

    async def _cleanup(self, what: str, write: Awaitable[object]) -> bool:
        """A clean-up write at the end of a reply, bounded and never raising (storage may be down).

        True when it was written. A failure leaves the row "streaming": once this process stops
        renewing it, the repair sweep closes it as "interrupted" (core/engine/watch.py).
        """
        try:
            await asyncio.wait_for(asyncio.shield(write), CLEANUP_TIMEOUT_S)
            return True
        except Exception as exc:
            log.warning("reply_cleanup_failed", step=what, error=type(exc).__name__)
            return False

    async def _run_ladder(self, request: LadderRequest, progress: ReplyProgress, emit) -> Outcome | None:
        """The guarded ladder's events to `emit`; its Outcome, or None after a config-error notice."""
        outcome = None
        try:
            async with aclosing(self._replies.run(request, progress)) as events:
                async for event in events:
                    if isinstance(event, Outcome):
                        outcome = event
                    else:
                        emit(event)
        except LLMConfigError as exc:
            log.error("llm_config_error", status=exc.status, error=type(exc).__name__)
            if progress.text:
                emit(TextReset("config_error"))
            emit(
                notice(say("CONFIG_ERROR", reply_language(request.question), trace=current_trace_id()), "config_error")
            )
            return None
        return outcome

    async def _finish(self, turn: Turn, outcome: Outcome, progress: ReplyProgress, timing: _Timing) -> None:
        answer = outcome.answer
        started = timing.started
        stats = _stats(turn, answer.level, answer.usage, answer.citations, timing, self._clock())
        # its status is confirmed once delivered; its footnotes and figures go with it (web history, feedback,
        # console); the person's usage is written in the same worker thread, right after (one hop for both)
        usage = self._guard.usage_recorder(turn, answer.usage) if answer.usage is not None else None
        await self._store_reply(turn, answer.text, answer.level, STREAMING, answer.citations, stats, then=usage)
        progress.status = outcome.status
        self._schedule(self._after_reply(turn, answer.text))
        log.info(
            "reply",
            fallback_level=answer.level,
            status=outcome.status,
            skill=turn.skill,
            citations=len(answer.citations),
            latency_ms=round((self._clock() - started) * 1000, 1),
            prompt_tokens=answer.usage.prompt_tokens if answer.usage else None,
            completion_tokens=answer.usage.completion_tokens if answer.usage else None,
        )

    async def _store_reply(
        self,
        turn: Turn,
        text: str,
        level: int | None,
        status: str,
        citations: Sequence[Citation] = (),
        stats: ReplyStats | None = None,
        *,
        then: Callable[[], None] | None = None,
    ) -> int:
        incoming = turn.incoming
        return await self._storage.replies.finish(
            incoming.chat_key, incoming.trace_id, text, level, status, citations, stats=stats, then=then
        )

    async def _after_reply(self, turn: Turn, text: str) -> None:
        try:
            await self._context.after_reply(turn, text)
        except Exception:
            log.exception("after_reply_failed")

    def _schedule(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)


async def _next(queue: asyncio.Queue, task: asyncio.Task) -> Any:
    """The producer's next event; _END once it ended, even when it never got to put _END (a task
    cancelled before its first step runs no `finally`). An event already waiting is taken at once
    (no getter task and no wait: a reply streams tens of deltas, often several at a time)."""
    if not queue.empty():
        return queue.get_nowait()
    while not task.done():
        getter = asyncio.ensure_future(queue.get())
        try:
            await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not getter.done():
                getter.cancel()  # Queue.get leaves an item it did not take in the queue
        if getter.done() and not getter.cancelled():
            return getter.result()
    return queue.get_nowait() if not queue.empty() else _END


@dataclass(frozen=True)
class _Timing:
    """When a reply started and first showed text (monotonic), and the model its calls used."""

    started: float
    first_visible: float | None
    model: str | None


def _stats(
    turn: Turn, level: int, usage: Usage | None, citations: Sequence[Citation], timing: _Timing, now: float
) -> ReplyStats:
    """The answer's row in `reply_stats` (the operator console's figures)."""
    incoming = turn.incoming
    spent = usage is not None and (usage.prompt_tokens or usage.completion_tokens)
    model = (timing.model or "default") if level < 2 or spent else None
    first = timing.first_visible
    return ReplyStats(
        trace_id=incoming.trace_id,
        platform=incoming.platform,
        chat_key=incoming.chat_key,
        person_id=turn.person_id,
        level=level,
        model=model,
        prompt_tokens=usage.prompt_tokens if usage else 0,
        completion_tokens=usage.completion_tokens if usage else 0,
        first_visible_ms=round((first - timing.started) * 1000) if first is not None else None,
        final_ms=round((now - timing.started) * 1000),
        cited=len(citations),
    )


def _tool_context(turn: Turn) -> ToolContext:
    incoming = turn.incoming
    return ToolContext(
        person_id=turn.person_id,
        platform=incoming.platform,
        chat_id=incoming.chat_id,
        is_group=incoming.is_group,
        trace_id=incoming.trace_id,
        account=incoming.account,
        is_admin=turn.is_admin,
    )
