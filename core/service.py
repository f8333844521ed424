"""ChatService: the engine every adapter drives. `handle(incoming)` yields ReplyEvents.

Per message: resolve who and where → commands → input checks → admission → store the user's words
→ build context → fallback ladder (L0 agent, L1 plain LLM, L2 retrieval) with every delta checked by
the output guard before it is shown → store the reply → usage → memory update in the background.

Stored statuses. User messages: "ok" (answered), "too_long", the input guard's reason (e.g.
"injection"), "empty" (nothing left after cleaning), "busy", "rate_limited", and "context" for group
messages not addressed to Fuzi. Replies: "ok", "blocked" (the output guard replaced it),
"cancelled" (the partial text shown before /cancel or before the adapter stopped reading),
"undelivered" (stored, but the adapter could not deliver the final text: `record_delivery`),
"streaming" while it runs (the row is written when the reply starts) and "interrupted" when a crash
cut it short (closed at the next start, with its question: `close_interrupted`).
Blank messages say nothing and are not stored; commands are not stored.

Cancelling: one reply runs at a time per person, in its own task. /cancel (from any chat or linked
account of that person) cancels it: the cancelled stream yields nothing more and simply ends, the
partial text is stored as "cancelled", and /cancel itself answers "已停止。Stopped." (Notice
reason "command", extra {"cancelled": True}). An adapter that stops reading early should close the
stream (`contextlib.aclosing`); that cancels the reply the same way.

The parts are built in bot/wiring.py and passed in: the guarded fallback ladder that produces the
answer, the admission gate (one reply in flight per person, then limits), the command router with
the built-in commands already registered.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import replace
from datetime import datetime

import structlog

from core.admission import Admission, NotAdmitted
from core.commands import CommandRouter
from core.events import FinalReply, Notice, NoticeReason, ReplyEvent, TextDelta, TextReset
from core.fallback import LadderRequest, LevelStart
from core.guarded import GuardedLadder, Outcome, ReplyProgress
from core.llm.errors import LLMConfigError
from core.logging import bind_trace, current_trace_id
from core.media.intake import MediaIntake
from core.ports import ContextBuilder, Guard, Turn
from core.skills import Skill, SkillRegistry
from core.storage.feedback import FeedbackOutcome
from core.storage.replies import Interrupted
from core.storage.repos import Storage
from core.text import reply_language
from core.texts import say
from core.tools.server import ToolContext
from core.types import Incoming

log = structlog.get_logger(__name__)

_END = object()
# NUL (PostgreSQL text rejects it) and lone surrogates (undecodable bytes via surrogateescape, broken
# JSON escapes; no UTF-8 encoder takes them): replaced by U+FFFD so the message can always be stored.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


class _Turned(Exception):
    """Internal: the input checks turned the message away; `status` is stored (None: not stored)."""

    def __init__(self, notice: Notice, status: str | None) -> None:
        super().__init__(notice.reason)
        self.notice = notice
        self.status = status


class ChatService:
    """The chat engine (the `Engine` port of core/ports.py). Everything long-lived is passed in.

    Args:
        storage: repositories over the database.
        skills: the skill registry (per-chat skill, default skill).
        router: the command router, built-in and memory/guard commands already registered.
        context: builds the model input and learns from finished replies (core/memory).
        guard: input checks and prompt hardening (its limits and output checks act through
            `admission` and `replies`).
        replies: the fallback ladder (L0 agent, L1 plain LLM, L2 retrieval) behind the output guard.
        admission: one reply in flight per person, then the sender's limits.
        admins: `platform:user_id` accounts marked `is_admin` in turns.
        max_input_chars: the one input length limit (messages and command arguments); longer
            messages are stored (status "too_long") but not answered.
        clock: monotonic clock for latency figures.
        media: reads photos and voice messages into questions (core/media); default: none read.
    """

    def __init__(
        self,
        *,
        storage: Storage,
        skills: SkillRegistry,
        router: CommandRouter,
        context: ContextBuilder,
        guard: Guard,
        replies: GuardedLadder,
        admission: Admission,
        admins: frozenset[str] = frozenset(),
        max_input_chars: int = 4000,
        clock: Callable[[], float] = time.monotonic,
        media: MediaIntake | None = None,
    ):
        self._storage = storage
        self._media = media or MediaIntake()
        self._skills = skills
        self._router = router
        self._context = context
        self._guard = guard
        self._replies = replies
        self.admission = admission
        self._admins = admins
        self._max_chars = max_input_chars
        self._clock = clock
        self._background: set[asyncio.Task] = set()
        self._interrupted: list[Interrupted] = []

    # ------------------------------------------------------------------ entry point
    async def handle(self, incoming: Incoming) -> AsyncIterator[ReplyEvent]:
        """Answer one message: yields TextDelta/TextReset/ToolStep, then a FinalReply or a Notice.

        The stream always ends cleanly: an unexpected failure becomes Notice("error") with the trace id.
        A message with media is read first (core/media/intake.py) and comes back here as text.
        """
        if incoming.media and incoming.addressed and incoming.command is None:
            async with aclosing(self._media.handle(incoming, self.handle)) as media_events:
                async for event in media_events:
                    yield event
            return
        incoming = _storable(incoming)
        with bind_trace(incoming):
            shown = False
            try:
                async with aclosing(self._route(incoming)) as events:
                    async for event in events:
                        if isinstance(event, TextDelta | TextReset):
                            shown = isinstance(event, TextDelta)
                        yield event
            except Exception:
                log.exception("reply_failed")
                if shown:
                    yield TextReset("error")
                yield Notice(
                    say("ERROR", reply_language(incoming.text[:500]), trace=incoming.trace_id),
                    "error",
                    incoming.trace_id,
                )

    async def record_delivery(self, trace_id: str, delivered: bool) -> None:
        """The adapter's word on whether a reply's final text reached the chat after its retries.

        A delivered reply keeps its status; an undelivered one becomes "undelivered" (it stays
        stored, so nothing is lost, but the record no longer claims the person saw it).
        """
        if not delivered:
            changed = await self._storage.messages.set_status(trace_id, "assistant", "undelivered", only_if="ok")
            log.warning("reply_undelivered", trace_id=trace_id, rows=changed)

    async def record_shown(self, trace_id: str, where: str) -> None:
        """The adapter's note of where a running reply is shown (``telegram:<chat>:<message>``); a
        reaction on that message later finds the reply (`record_feedback`)."""
        await self._storage.replies.shown_in(trace_id, where)
        await self._storage.feedback.shown(trace_id, where)

    async def record_feedback(
        self, platform: str, account: str, reaction: str, *, where: str | None = None, trace_id: str | None = None
    ) -> FeedbackOutcome:
        """A reaction (👍 👎 …, or "up"/"down" from a button) on an answer (core/storage/feedback.py)."""
        return await self._storage.feedback.rate(platform, account, reaction, where=where, trace_id=trace_id)

    async def close_interrupted(self, started_before: datetime | None = None) -> None:
        """At start: close the replies a crash cut short (core/storage/replies.py); adapters then
        take theirs with `take_interrupted` and correct the frozen messages."""
        self._interrupted.extend(await self._storage.replies.close_interrupted(started_before))
        if self._interrupted:
            log.warning("replies_interrupted", count=len(self._interrupted))

    def take_interrupted(self, platform: str) -> list[str]:
        """Where the interrupted replies of `platform` are shown (once: later calls get nothing)."""
        mine = [r for r in self._interrupted if r.shown_in.startswith(f"{platform}:")]
        self._interrupted = [r for r in self._interrupted if r not in mine]
        return [r.shown_in for r in mine]

    def commands(self) -> list[tuple[str, str, str]]:
        """(name, summary_zh, summary_en) of every command, for platform menus (setMyCommands, slash)."""
        return self._router.commands()

    def skills(self) -> list[tuple[str, str]]:
        """(name, display) of every skill, for /skill choices and buttons."""
        return self._skills.choices()

    async def aclose(self, timeout_s: float = 5.0) -> None:
        """Wait (bounded) for background memory updates to finish; call on shutdown."""
        if self._background:
            await asyncio.wait(set(self._background), timeout=timeout_s)

    async def _route(self, incoming: Incoming) -> AsyncIterator[ReplyEvent]:
        """Who and where → group context / command / input checks → admission → the reply task."""
        person_id = await self._storage.identities.resolve(incoming.platform, incoming.user_id, incoming.user_name)
        chat = await self._storage.chats.ensure(incoming.chat_key, incoming.platform, incoming.is_group)
        if not incoming.addressed:  # group chatter: kept as context, never answered
            if incoming.text.strip():
                await self._store_user(Turn(incoming, person_id, chat.skill or ""), "context")
            return
        skill = self._skills.get(chat.skill)
        turn = Turn(incoming, person_id, skill.name, is_admin=incoming.account in self._admins)
        try:
            if incoming.command is not None:
                yield await self._command(turn)
                return
            text = await self._checked_input(incoming.text)
            async with self.admission.admit(turn):
                await self._store_user(turn, "ok")
                cleaned = replace(turn, incoming=replace(incoming, text=text))
                async with aclosing(self._in_task(cleaned, skill)) as events:
                    async for event in events:
                        yield event
        except _Turned as turned:
            yield await self._charge_refused(turn, turned) if turned.status is not None else turned.notice
        except NotAdmitted as refused:
            await self._store_user(turn, refused.status)
            yield self._notice(refused.text, refused.reason, refused.extra)

    async def _charge_refused(self, turn: Turn, turned: _Turned) -> Notice:
        """Refused input counts against the sender's limits (`Guard.admit` counts it) and is stored
        clipped (`clip_refused`, core/storage/repos.py); over the limit, the limit's refusal answers."""
        refusal = await self._guard.admit(turn)
        if refusal is not None:
            await self._store_user(turn, "rate_limited")
            extra = {"limit": refusal.reason, "retry_after_s": refusal.retry_after_s}
            return self._notice(refusal.text, "rate_limited", extra)
        await self._store_user(turn, turned.status or "refused")
        return turned.notice

    async def _checked_input(self, text: str, *, guard: bool = True) -> str:
        """The cleaned text, or _Turned: empty (not stored), too long, or refused by the input guard.

        The one input check for chat and command arguments alike: /remember must not store (and so
        put into every later prompt) what the guard refuses in a message.
        """
        if not text.strip():
            raise _Turned(self._rejected(say("EMPTY", None), "bad_input", why="empty", chars=len(text)), None)
        if len(text) > self._max_chars:
            notice = self._rejected(
                say("TOO_LONG", reply_language(text[:500]), limit=self._max_chars),
                "bad_input",
                why="too_long",
                chars=len(text),
            )
            raise _Turned(notice, "too_long")
        if not guard:
            return text
        verdict = await self._guard.review_input(text)  # the local check, and the LLM's where it is unsure
        if verdict.reason == "empty" or not verdict.text.strip():  # only invisible or control characters
            raise _Turned(
                self._rejected(verdict.refusal or say("EMPTY", None), "bad_input", why="empty", chars=len(text)),
                "empty",
            )
        if verdict.refusal is not None:
            raise _Turned(self._notice(verdict.refusal, "injection"), verdict.reason or "injection")
        return verdict.text

    async def _command(self, turn: Turn) -> Notice:
        """Run a command; its arguments (when there are any) pass the same input check as chat."""
        incoming = turn.incoming
        if incoming.text.strip():
            try:  # a command that screens its own arguments (/remember: FactScreen) skips the guard's check
                await self._checked_input(incoming.text, guard=not self._router.screens_input(incoming.command))
            except _Turned as turned:
                return turned.notice  # a command is not stored, nor are its refused arguments
        result = await self._router.dispatch(turn, incoming.command, incoming.text)
        reason: NoticeReason = "command" if incoming.command in self._router else "unknown_command"
        return Notice(result.text, reason, incoming.trace_id, dict(result.extra))

    # ------------------------------------------------------------------ the reply task
    async def _in_task(self, turn: Turn, skill: Skill) -> AsyncIterator[ReplyEvent]:
        """Run the reply in its own task (so /cancel can stop it) and pass its events on.

        A cancelled reply yields nothing more; the consumer leaving early cancels the task too.
        """
        queue: asyncio.Queue = asyncio.Queue()
        task = asyncio.create_task(self._produce(turn, skill, queue))
        self.admission.running.attach(turn.person_id, task)
        try:
            while (event := await queue.get()) is not _END and not task.cancelling():
                yield event
            await asyncio.wait({task})
        finally:
            if not task.done():
                task.cancel()
                await asyncio.wait({task})
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()

    async def _produce(self, turn: Turn, skill: Skill, queue: asyncio.Queue) -> None:
        """The reply: context, the guarded ladder, storing; its events go to `queue`, then _END."""
        progress = ReplyProgress()

        def emit(event: ReplyEvent | LevelStart) -> None:
            progress.see(event)
            if not isinstance(event, LevelStart):
                queue.put_nowait(event)

        try:
            await self._storage.replies.start(turn.incoming.chat_key, turn.incoming.trace_id)  # survives a crash
            started, deadline = self._clock(), self._replies.deadline()
            if not self._replies.has_llm and await self._storage.chats.claim_no_llm_notice(turn.incoming.chat_key):
                emit(self._notice(say("NO_LLM", None), "no_llm"))
            messages = await self._context.build(turn, self._guard.harden(skill.system_prompt))
            request = LadderRequest(messages, skill, turn.incoming.text, _tool_context(turn), deadline)
            outcome = await self._run_ladder(request, progress, emit)
            if outcome is not None:
                await self._finish(turn, outcome, started)
                progress.finished = True
                answer = outcome.answer
                emit(FinalReply(answer.text, answer.citations, answer.level, turn.incoming.trace_id))
        except asyncio.CancelledError:
            if not progress.finished:
                log.info("reply_cancelled", fallback_level=progress.level, chars=len(progress.text))
                if progress.text:
                    await asyncio.shield(self._store_reply(turn, progress.text, progress.level, "cancelled"))
            raise
        finally:
            if not progress.finished:  # no answer stored: drop the started row (a cancel stored its own)
                await asyncio.shield(self._storage.replies.discard(turn.incoming.trace_id))
            queue.put_nowait(_END)

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
                self._notice(
                    say("CONFIG_ERROR", reply_language(request.question), trace=current_trace_id()), "config_error"
                )
            )
            return None
        return outcome

    async def _finish(self, turn: Turn, outcome: Outcome, started: float) -> None:
        answer = outcome.answer
        await self._store_reply(turn, answer.text, answer.level, outcome.status)
        if answer.usage is not None:
            await self._guard.record_usage(turn, answer.usage)
        self._schedule(self._after_reply(turn, answer.text))
        if answer.citations:  # for feedback listings; off the reply's path
            self._schedule(self._note_cited(turn.incoming.trace_id, [c.ref for c in answer.citations]))
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

    # ------------------------------------------------------------------ helpers
    def _notice(self, text: str, reason: NoticeReason, extra: dict | None = None) -> Notice:
        return Notice(text, reason, current_trace_id(), extra or {})

    def _rejected(self, text: str, reason: NoticeReason, *, why: str, chars: int) -> Notice:
        """A notice for input turned away before admission, logged (ids and size, not the text)."""
        log.info("input_rejected", reason=why, chars=chars)
        return self._notice(text, reason)

    async def _store_user(self, turn: Turn, status: str) -> int:
        incoming = turn.incoming
        return await self._storage.messages.add(
            incoming.chat_key,
            "user",
            incoming.text,
            person_id=turn.person_id,
            account=incoming.account,
            speaker=incoming.user_name,
            status=status,
            trace_id=incoming.trace_id,
        )

    async def _store_reply(self, turn: Turn, text: str, level: int | None, status: str) -> int:
        incoming = turn.incoming
        return await self._storage.replies.finish(incoming.chat_key, incoming.trace_id, text, level, status)

    async def _note_cited(self, trace_id: str, refs: list[str]) -> None:
        try:
            await self._storage.feedback.cited(trace_id, refs)
        except Exception:
            log.exception("cited_not_stored")

    async def _after_reply(self, turn: Turn, text: str) -> None:
        try:
            await self._context.after_reply(turn, text)
        except Exception:
            log.exception("after_reply_failed")

    def _schedule(self, coro) -> None:
        task = asyncio.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)


def _storable(incoming: Incoming) -> Incoming:
    """Replace characters no database or wire takes (NUL, lone surrogates) with U+FFFD: nothing is lost."""
    text, name = _UNSTORABLE.sub("\ufffd", incoming.text), _UNSTORABLE.sub("\ufffd", incoming.user_name)
    if text == incoming.text and name == incoming.user_name:
        return incoming
    return replace(incoming, text=text, user_name=name)


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
