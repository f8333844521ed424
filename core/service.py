"""ChatService: the engine every adapter drives. `handle(incoming)` yields ReplyEvents.

Per message: resolve who and where → commands → input checks → admission → store the user's words
→ build context → fallback ladder (L0 agent, L1 plain LLM, L2 retrieval) with every delta checked by
the output guard before it is shown → store the reply → usage → memory update in the background.

Stored statuses. User messages: "ok" (answered), "too_long", the input guard's reason (e.g.
"injection"), "empty" (nothing left after cleaning), "busy", "rate_limited", and "context" for group
messages not addressed to Fuzi. Replies: "ok", "blocked" (the output guard replaced it),
"cancelled" (the partial text shown before /cancel or before the adapter stopped reading),
"undelivered" (stored, but the adapter could not deliver the final text: `record_delivery`),
"streaming" while it runs (the row is written when the reply starts) and until the adapter took its
final text, and "interrupted" when a crash cut it short (closed with its question by any live
process's repair sweep, core/reply_watch.py, or at the next start: `close_interrupted`).
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
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from contextlib import aclosing
from dataclasses import replace
from typing import Any

import structlog
from sqlalchemy.exc import InterfaceError, OperationalError

from core.admission import Admission, NotAdmitted
from core.chatsettings.admins import AdminCheck
from core.chatsettings.command import SettingsCommand, SettingsListener
from core.commands import CommandRouter
from core.events import Citation, FinalReply, Notice, NoticeReason, ReplyEvent, TextDelta, TextReset
from core.fallback import LadderRequest, LevelStart
from core.guarded import GuardedLadder, Outcome, ReplyProgress
from core.llm.errors import LLMConfigError
from core.logging import bind_trace, current_trace_id
from core.lookup import NOTHING, LookupResult, PassageLookup
from core.media.intake import MediaIntake
from core.ports import ContextBuilder, Guard, Turn
from core.quotes import screen_quotes
from core.reply_records import ReplyRecords
from core.reply_watch import ReplyWatch
from core.script import Script, ScriptConverter
from core.shown_in import ShownIn
from core.skills import Skill, SkillRegistry
from core.storage.feedback import FeedbackOutcome
from core.storage.replies import Interrupted
from core.storage.repos import Storage
from core.storage.status import STREAMING, MessageStatus
from core.text import reply_language
from core.texts import say
from core.tools.server import ToolContext
from core.types import Incoming

log = structlog.get_logger(__name__)

_END = object()
CLEANUP_TIMEOUT_S = 5.0
"""The longest a reply's clean-up write (store the cancelled text, drop the started row) may hold
the end of its stream when the database does not answer."""
# NUL (PostgreSQL text rejects it) and lone surrogates (undecodable bytes via surrogateescape, broken
# JSON escapes; no UTF-8 encoder takes them): replaced by U+FFFD so the message can always be stored.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


class _Turned(Exception):
    """Internal: the input checks turned the message away; `status` is stored (None: not stored)."""

    def __init__(self, notice: Notice, status: MessageStatus | None) -> None:
        super().__init__(notice.reason)
        self.notice = notice
        self.status = status


class ChatService(ReplyRecords):
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
        reply_lease_s: a reply row not renewed for this long belongs to a dead process and is
            repaired by `watch` (core/reply_watch.py; `watch.start()` runs it).
        clock: monotonic clock for latency figures.
        settings: the /settings command (already on `router`): adapters register their admin check
            on it (`register_admin_check`), the scheduler its listener (`add_settings_listener`).
        scripts: Simplified/Traditional conversion of answers (core/script.py); None: never converted.
        lookup: retrieval-only passage look-ups (inline mode, /passage); None: none offered.
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
        reply_lease_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
        settings: SettingsCommand | None = None,
        scripts: ScriptConverter | None = None,
        lookup: PassageLookup | None = None,
        media: MediaIntake | None = None,
    ):
        self._storage = storage
        self.settings = settings
        self._scripts = scripts
        self._lookup = lookup
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
        self.watch = ReplyWatch(storage.replies, lease_s=reply_lease_s, on_interrupted=self._interrupted.extend)

    # ------------------------------------------------------------------ entry point
    async def handle(self, incoming: Incoming) -> AsyncGenerator[ReplyEvent, None]:
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
            except (OperationalError, InterfaceError) as exc:  # database unreachable: one line, no traceback
                detail = (str(exc.orig or exc).strip().splitlines() or [""])[0][:200]
                log.error(
                    "reply_failed", reason="storage_unavailable", error=type(exc.orig or exc).__name__, detail=detail
                )
                if shown:
                    yield TextReset("error")
                yield self._error_notice(incoming)
            except Exception:
                log.exception("reply_failed")
                if shown:
                    yield TextReset("error")
                yield self._error_notice(incoming)

    def _error_notice(self, incoming: Incoming) -> Notice:
        return Notice(
            say("ERROR", reply_language(incoming.text[:500]), trace=incoming.trace_id), "error", incoming.trace_id
        )

    def register_admin_check(self, platform: str, check: AdminCheck) -> None:
        """The adapter of `platform` answers "is this user a group admin?" (settings changes)."""
        if self.settings is not None:
            self.settings.admins.register(platform, check)

    def add_settings_listener(self, listener: SettingsListener) -> None:
        """Tell `listener` about every stored settings change (e.g. the digest's storage)."""
        if self.settings is not None:
            self.settings.add_listener(listener)

    async def record_feedback(
        self, platform: str, account: str, reaction: str, *, where: ShownIn | None = None, trace_id: str | None = None
    ) -> FeedbackOutcome:
        """A reaction (👍 👎 …, or "up"/"down" from a button) on an answer (core/storage/feedback.py)."""
        return await self._storage.feedback.rate(platform, account, reaction, where=where, trace_id=trace_id)

    async def look_up(self, platform: str, user_id: str, query: str, k: int = 10) -> LookupResult:
        """Up to `k` cited passages for `query`, from retrieval alone (core/lookup.py)."""
        if self._lookup is None:
            return LookupResult(hint=NOTHING)
        return await self._lookup.lookup(query, account=f"{platform}:{user_id}", k=k)

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

    async def _route(self, incoming: Incoming) -> AsyncGenerator[ReplyEvent, None]:
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
                quoted = screen_quotes(incoming.quoted, self._guard)  # data, clipped; never a refusal
                cleaned = replace(turn, incoming=replace(incoming, text=text, quoted=quoted))
                script = await self._reply_script(incoming)
                async with aclosing(self._in_task(cleaned, skill)) as events:
                    async for event in events:
                        yield self._scripts.event(event, script) if self._scripts else event
        except _Turned as turned:
            yield await self._charge_refused(turn, turned) if turned.status is not None else turned.notice
        except NotAdmitted as refused:
            yield await self._not_admitted(turn, refused)

    async def _not_admitted(self, turn: Turn, refused: NotAdmitted) -> Notice:
        await self._store_user(turn, refused.status)
        return self._notice(refused.text, refused.reason, refused.extra)

    async def _reply_script(self, incoming: Incoming) -> Script:
        """The chat's script setting, else the script the person wrote in (core/script.py)."""
        if self._scripts is None:
            return "simplified"
        settings = await self._storage.settings.get(incoming.chat_key)
        return self._scripts.reply_script(settings.script, incoming.text)

    async def _charge_refused(self, turn: Turn, turned: _Turned) -> Notice:
        """Refused input counts against the sender's limits (`Admission.charge`) and is stored
        clipped (`clip_refused`, core/storage/repos.py); over the limit, the limit's refusal answers."""
        try:
            await self.admission.charge(turn)
        except NotAdmitted as refused:
            return await self._not_admitted(turn, refused)
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
        result = await self._router.dispatch(turn, incoming.command or "", incoming.text)
        reason: NoticeReason = "command" if incoming.command in self._router else "unknown_command"
        return Notice(result.text, reason, incoming.trace_id, dict(result.extra))

    # ------------------------------------------------------------------ the reply task
    async def _in_task(self, turn: Turn, skill: Skill) -> AsyncGenerator[ReplyEvent, None]:
        """Run the reply in its own task (so /cancel can stop it) and pass its events on.

        A cancelled reply yields nothing more; the consumer leaving early cancels the task too.
        """
        queue: asyncio.Queue = asyncio.Queue()
        progress = ReplyProgress()
        trace_id = turn.incoming.trace_id
        task = asyncio.create_task(self._produce(turn, skill, queue, progress))
        self.admission.running.attach(turn.person_id, task)
        self.watch.begin(trace_id)
        try:
            while (event := await _next(queue, task)) is not _END and not task.cancelling():
                yield event
                if isinstance(event, FinalReply) and progress.status is not None:
                    await self.watch.confirm(trace_id, progress.status)  # it was delivered: now it is "ok"
            await asyncio.wait({task})
        finally:
            self.watch.end(trace_id)
            if not task.done():
                task.cancel()
                await asyncio.wait({task})
        if not task.cancelled() and (error := task.exception()) is not None:
            raise error

    async def _produce(self, turn: Turn, skill: Skill, queue: asyncio.Queue, progress: ReplyProgress) -> None:
        """The reply: context, the guarded ladder, storing; its events go to `queue`, then _END.

        The final text is stored while its row is still "streaming" (pending delivery): the row gets
        its final status (`progress.status`) only once the consumer took the FinalReply and asked for
        more (`_in_task`), so a final text that never reached the person is never recorded "ok".
        """

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
                await self._finish(turn, outcome, started, progress)
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
        renewing it, the repair sweep closes it as "interrupted" (core/reply_watch.py).
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
                self._notice(
                    say("CONFIG_ERROR", reply_language(request.question), trace=current_trace_id()), "config_error"
                )
            )
            return None
        return outcome

    async def _finish(self, turn: Turn, outcome: Outcome, started: float, progress: ReplyProgress) -> None:
        answer = outcome.answer
        # its status is confirmed once delivered; its footnotes go with it (the web history, feedback)
        await self._store_reply(turn, answer.text, answer.level, STREAMING, answer.citations)
        progress.status = outcome.status
        if answer.usage is not None:
            await self._guard.record_usage(turn, answer.usage)
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

    # ------------------------------------------------------------------ helpers
    def _notice(self, text: str, reason: NoticeReason, extra: dict | None = None) -> Notice:
        return Notice(text, reason, current_trace_id(), extra or {})

    def _rejected(self, text: str, reason: NoticeReason, *, why: str, chars: int) -> Notice:
        """A notice for input turned away before admission, logged (ids and size, not the text)."""
        log.info("input_rejected", reason=why, chars=chars)
        return self._notice(text, reason)

    async def _store_user(self, turn: Turn, status: MessageStatus) -> int:
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

    async def _store_reply(
        self, turn: Turn, text: str, level: int | None, status: str, citations: Sequence[Citation] = ()
    ) -> int:
        incoming = turn.incoming
        return await self._storage.replies.finish(incoming.chat_key, incoming.trace_id, text, level, status, citations)

    async def _after_reply(self, turn: Turn, text: str) -> None:
        try:
            await self._context.after_reply(turn, text)
        except Exception:
            log.exception("after_reply_failed")

    def _schedule(self, coro) -> None:
        task = asyncio.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)


async def _next(queue: asyncio.Queue, task: asyncio.Task) -> Any:
    """The producer's next event; _END once it ended, even when it never got to put _END (a task
    cancelled before its first step runs no `finally`)."""
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
