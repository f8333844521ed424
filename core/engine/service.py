"""ChatService: the engine every adapter drives. `handle(incoming)` yields ReplyEvents.

Per message: resolve who and where → commands → input checks (core/engine/checks.py) → admission →
store the user's words, with what they quoted (screened: core/memory/quotes.py) → the reply task
(core/engine/reply.py): build context → fallback ladder (L0 agent, L1 plain LLM, L2 retrieval) with
every delta checked by the output guard before it is shown → store the reply → usage → memory
update in the background. Answers in a Traditional chat are converted on the way out, previews and
final alike (core/language/script.py `ReplyScript`). The adapter-facing record of replies (delivered, where
shown, cut short) is core/engine/records.py.

Stored statuses. User messages: "ok" (answered), "too_long", the input guard's reason (e.g.
"injection"), "empty" (nothing left after cleaning), "busy", "rate_limited", and "context" for group
messages not addressed to Fuzi. Replies: "ok", "blocked" (the output guard replaced it),
"cancelled" (the partial text shown before /cancel or before the adapter stopped reading),
"undelivered" (stored, but the adapter could not deliver the final text: `record_delivery`),
"streaming" while it runs (the row is written when the reply starts) and until the adapter took its
final text, and "interrupted" when a crash cut it short (closed with its question by any live
process's repair sweep, core/engine/watch.py, or at the next start: `close_interrupted`).
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

import time
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import replace

import structlog
from sqlalchemy.exc import InterfaceError, OperationalError

from core.chatsettings.command import SettingsCommand, SettingsListener
from core.engine.admission import Admission, NotAdmitted
from core.engine.checks import InputChecks, Turned, storable
from core.engine.commands import CommandRouter
from core.engine.lookup import NOTHING, PassageLookup
from core.engine.notices import error_notice, notice
from core.engine.output_guard import GuardedLadder
from core.engine.records import ReplyRecords
from core.engine.reply import ReplyTask
from core.engine.watch import ReplyWatch
from core.events import Notice, NoticeReason, ReplyEvent, TextDelta, TextReset
from core.language import Script
from core.language.script import ScriptConverter
from core.llm.choice import ModelChoice
from core.logging import bind_trace
from core.media.intake import MediaIntake
from core.memory.quotes import dump_quotes, screen_quotes
from core.ports import AdminCheck, AwaitedAnswers, ContextBuilder, Guard, LookupResult, Turn
from core.shown_in import ShownIn
from core.skills import SkillRegistry
from core.storage.feedback import FeedbackOutcome
from core.storage.replies import Interrupted
from core.storage.repos import Storage
from core.storage.status import MessageStatus
from core.types import Incoming

log = structlog.get_logger(__name__)


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
            repaired by `watch` (core/engine/watch.py; `watch.start()` runs it).
        clock: monotonic clock for latency figures.
        settings: the /settings command (already on `router`): adapters register their admin check
            on it (`register_admin_check`), the scheduler its listener (`add_settings_listener`).
        scripts: Simplified/Traditional conversion of answers (core/language/script.py); None: never converted.
        lookup: retrieval-only passage look-ups (inline mode, /passage); None: none offered.
        media: reads photos and voice messages into questions (core/media); default: none read.
        answers: takes a message as the answer to what a part asked in that chat (/recite's card),
            before it is checked and answered like a question; set later with `set_answers`.
        models: the default model and those a chat may pick (core/llm/choice.py); each reply's calls
            go to its chat's model. None: every call to the client's own model.
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
        answers: AwaitedAnswers | None = None,
        models: ModelChoice | None = None,
    ):
        self._storage = storage
        self._answers = answers
        self.models_choice = models
        self.settings = settings
        self._scripts = scripts
        self._lookup = lookup
        self._media = media or MediaIntake()
        self._skills = skills
        self._router = router
        self._guard = guard
        self.admission = admission
        self._admins = admins
        self._checks = InputChecks(guard, max_input_chars)
        self._interrupted: list[Interrupted] = []
        self.watch = ReplyWatch(storage.replies, lease_s=reply_lease_s, on_interrupted=self._interrupted.extend)
        self._reply = ReplyTask(
            storage=storage,
            context=context,
            guard=guard,
            replies=replies,
            running=admission.running,
            watch=self.watch,
            clock=clock,
        )

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
        incoming = storable(incoming)
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
                yield error_notice(incoming)
            except Exception:
                log.exception("reply_failed")
                if shown:
                    yield TextReset("error")
                yield error_notice(incoming)

    def set_answers(self, answers: AwaitedAnswers | None) -> None:
        """Messages answer what `answers` asked in their chat (core/recite) before they are questions."""
        self._answers = answers

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
        """Up to `k` cited passages for `query`, from retrieval alone (core/engine/lookup.py)."""
        if self._lookup is None:
            return LookupResult(hint=NOTHING)
        return await self._lookup.lookup(query, account=f"{platform}:{user_id}", k=k)

    def commands(self) -> list[tuple[str, str, str]]:
        """(name, summary_zh, summary_en) of every command, for platform menus (setMyCommands, slash)."""
        return self._router.commands()

    def models(self) -> list[str]:
        """The models a chat may pick (the default first), for /settings model choices; empty: no choice."""
        return list(self.models_choice.names) if self.models_choice and self.models_choice.choosable else []

    def skills(self) -> list[tuple[str, str]]:
        """(name, display) of every skill, for /skill choices and buttons."""
        return self._skills.choices()

    async def aclose(self, timeout_s: float = 5.0) -> None:
        """Wait (bounded) for background memory updates to finish; call on shutdown."""
        await self._reply.drain(timeout_s)

    async def _route(self, incoming: Incoming) -> AsyncGenerator[ReplyEvent, None]:
        """Who and where → group context / command / input checks → admission → the reply task."""
        arrival = await self._storage.arrivals.arrive(  # one statement: person, chat settings, awaited answer
            incoming.platform,
            incoming.user_id,
            incoming.user_name,
            incoming.chat_key,
            incoming.is_group,
            awaited=self._answers.awaited if self._answers is not None else None,
        )
        person_id, chat = arrival.person_id, arrival.chat
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
            answered = await self._answers.answer(turn) if arrival.awaited and self._answers is not None else None
            if answered is not None:
                yield Notice(answered.text, "command", incoming.trace_id, dict(answered.extra))
                return
            text = await self._checks.check(incoming.text)
            async with self.admission.admit(turn):
                quoted = screen_quotes(incoming.quoted, self._guard)  # data, clipped; never a refusal
                cleaned = replace(turn, incoming=replace(incoming, text=text, quoted=quoted))
                shown = self._scripts.reply(self._reply_script(incoming, chat.script)) if self._scripts else None
                model = self.models_choice.pick(chat.model) if self.models_choice is not None else None
                # kept for the follow-ups, before any LLM call; its reply's "streaming" row in the same INSERT
                await self._store_user(turn, "ok", quoted=dump_quotes(quoted), reply=True)
                async with aclosing(self._reply.stream(cleaned, skill, model)) as events:
                    async for event in events:
                        for out in shown.events(event) if shown else (event,):
                            yield out
        except Turned as turned:
            yield await self._charge_refused(turn, turned) if turned.status is not None else turned.notice
        except NotAdmitted as refused:
            yield await self._not_admitted(turn, refused)

    async def _not_admitted(self, turn: Turn, refused: NotAdmitted) -> Notice:
        await self._store_user(turn, refused.status)
        return notice(refused.text, refused.reason, refused.extra)

    def _reply_script(self, incoming: Incoming, setting: Script | None) -> Script:
        """The chat's script setting (read with the chat in `_route`), else the script the person wrote in."""
        if self._scripts is None:
            return "simplified"
        return self._scripts.reply_script(setting, incoming.text)

    async def _charge_refused(self, turn: Turn, turned: Turned) -> Notice:
        """Refused input counts against the sender's limits (`Admission.charge`) and is stored
        clipped (`clip_refused`, core/storage/repos.py); over the limit, the limit's refusal answers."""
        try:
            await self.admission.charge(turn)
        except NotAdmitted as refused:
            return await self._not_admitted(turn, refused)
        await self._store_user(turn, turned.status or "refused")
        return turned.notice

    async def _command(self, turn: Turn) -> Notice:
        """Run a command; its arguments (when there are any) pass the same input check as chat."""
        incoming = turn.incoming
        if incoming.text.strip():
            try:  # a command that screens its own arguments (/remember: FactScreen) skips the guard's check
                await self._checks.check(incoming.text, guard=not self._router.screens_input(incoming.command))
            except Turned as turned:
                return turned.notice  # a command is not stored, nor are its refused arguments
        result = await self._router.dispatch(turn, incoming.command or "", incoming.text)
        reason: NoticeReason = "command" if incoming.command in self._router else "unknown_command"
        return Notice(result.text, reason, incoming.trace_id, dict(result.extra))

    async def _store_user(
        self, turn: Turn, status: MessageStatus, *, quoted: str | None = None, reply: bool = False
    ) -> int:
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
            quoted=quoted,
            reply=reply,
        )
