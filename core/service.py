"""ChatService: the engine every adapter drives. `handle(incoming)` yields ReplyEvents.

Per message: resolve who and where → commands → input checks → admission → store the user's words
→ build context → fallback ladder (L0 agent, L1 plain LLM, L2 retrieval) with every delta checked by
the output guard before it is shown → store the reply → usage → memory update in the background.

Stored statuses. User messages: "ok" (answered), "too_long", the input guard's reason (e.g.
"injection"), "empty" (nothing left after cleaning), "busy", "rate_limited", and "context" for group
messages not addressed to Fuzi. Replies: "ok", "blocked" (the output guard replaced it),
"cancelled" (the partial text shown before /cancel or before the adapter stopped reading).
Blank messages say nothing and are not stored; commands are not stored.

Cancelling: one reply runs at a time per person, in its own task. /cancel (from any chat or linked
account of that person) cancels it: the cancelled stream yields nothing more and simply ends, the
partial text is stored as "cancelled", and /cancel itself answers "已停止。Stopped." (Notice
reason "command", extra {"cancelled": True}). An adapter that stops reading early should close the
stream (`contextlib.aclosing`); that cancels the reply the same way.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import replace

import structlog

from core.commands import BuiltinCommands, CommandRouter, RunningReplies
from core.events import FinalReply, Notice, ReplyEvent, TextDelta, TextReset
from core.fallback import AgentRunner, Answer, FallbackLadder, LadderRequest, LevelStart, PassageSearch
from core.guarded import GuardedLadder, Outcome, ReplyProgress
from core.llm.errors import LLMConfigError
from core.llm.types import LLM
from core.logging import bind_trace, current_trace_id
from core.ports import ContextBuilder, Guard, Refusal, Turn
from core.skills import Skill, SkillRegistry, reply_language
from core.storage.repos import Storage
from core.tools.server import ToolContext
from core.types import Incoming

log = structlog.get_logger(__name__)

EMPTY_TEXT = "请说点什么，夫子在听。Say something; I am listening."
TOO_LONG_TEXT = {
    "zh": "所言太长（上限 {limit} 字），夫子一时听不过来。请拣要紧处，分几次说。",
    "en": "That is too long for me to take in at once (limit {limit} characters). Please say the heart of it, in parts.",
}
BUSY_TEXT = "夫子正答你上一问，稍候片刻；若要打断，发 /cancel。I am still answering your last question; send /cancel to stop it."
NO_LLM_TEXT = "今日夫子只凭典籍原文作答（未配置语言模型）。Today I answer from the texts alone (no language model is configured)."
CONFIG_ERROR_TEXT = "夫子此刻无法作答：服务配置有误，已告知管理者。(trace {trace})"
ERROR_TEXT = "夫子一时语塞……请稍后再问。(trace {trace})"
_INPUT_REASON = {"too_long": "bad_input", "empty": "bad_input"}
_END = object()
# NUL (PostgreSQL text rejects it) and lone surrogates (undecodable bytes via surrogateescape, broken
# JSON escapes; no UTF-8 encoder takes them): replaced by U+FFFD so the message can always be stored.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")



class ChatService:
    """The chat engine. Everything long-lived is passed in; nothing is global.

    Args:
        storage: repositories over the database.
        skills: the skill registry (per-chat skill, default skill).
        router: command router; the built-in commands are registered on it here.
        context: builds the model input and learns from finished replies (core/memory).
        guard: input/output checks, admission, prompt hardening, usage (core/guards).
        agent: the ReAct agent (L0), or None.
        llm: the LLM port for L1, or None when no key is configured (the engine answers in L2).
        retriever: passage search for L2 answers, or None.
        admins: `platform:user_id` accounts marked `is_admin` in turns.
        max_input_chars: longer messages are stored but not answered.
        l2_passages: passages quoted in a retrieval-only answer.
        reply_deadline_s: wall time for one reply, all fallback levels together, counted from the
            start of the reply (context building included); at the deadline the reply is answered
            from L2. None: no overall deadline (each level stops by its own limits).
        clock: monotonic clock for latency figures and the reply deadline.
    """

    def __init__(
        self,
        *,
        storage: Storage,
        skills: SkillRegistry,
        router: CommandRouter,
        context: ContextBuilder,
        guard: Guard,
        agent: AgentRunner | None = None,
        llm: LLM | None = None,
        retriever: PassageSearch | None = None,
        admins: frozenset[str] = frozenset(),
        max_input_chars: int = 4000,
        l2_passages: int = 3,
        reply_deadline_s: float | None = 120.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        self._storage = storage
        self._skills = skills
        self._router = router
        self._context = context
        self._guard = guard
        self._ladder = FallbackLadder(
            agent=agent, llm=llm, retriever=retriever, l2_k=l2_passages, deadline_s=reply_deadline_s, clock=clock,
        )
        self._guarded = GuardedLadder(self._ladder, guard)
        self._admins = admins
        self._max_chars = max_input_chars
        self._clock = clock
        self.running = RunningReplies()
        self._background: set[asyncio.Task] = set()
        BuiltinCommands(router, skills, storage.chats, self.running).register()

    # ------------------------------------------------------------------ entry point
    async def handle(self, incoming: Incoming) -> AsyncIterator[ReplyEvent]:
        """Answer one message: yields TextDelta/TextReset/ToolStep, then a FinalReply or a Notice.

        The stream always ends cleanly: an unexpected failure becomes Notice("error") with the trace id.
        """
        incoming = _storable(incoming)
        with bind_trace(incoming):
            shown = False
            try:
                async with aclosing(self._handle(incoming)) as events:
                    async for event in events:
                        if isinstance(event, TextDelta | TextReset):
                            shown = isinstance(event, TextDelta)
                        yield event
            except Exception:
                log.exception("reply_failed")
                if shown:
                    yield TextReset("error")
                yield Notice(ERROR_TEXT.format(trace=incoming.trace_id), "error", incoming.trace_id)

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

    async def _handle(self, incoming: Incoming) -> AsyncIterator[ReplyEvent]:
        person_id = await self._storage.identities.resolve(incoming.platform, incoming.user_id, incoming.user_name)
        chat = await self._storage.chats.ensure(incoming.chat_key, incoming.platform, incoming.is_group)
        if not incoming.addressed:  # group chatter: kept as context, never answered
            if incoming.text.strip():
                await self._store_user(Turn(incoming, person_id, chat.skill or ""), "context")
            return
        skill = self._skills.get(chat.skill)
        turn = Turn(incoming, person_id, skill.name, is_admin=incoming.account in self._admins)
        if incoming.command is not None:
            yield await self._command(turn)
            return
        async with aclosing(self._answer(turn, skill)) as events:
            async for event in events:
                yield event

    async def _command(self, turn: Turn) -> Notice:
        """Run a command. Its arguments pass the same input checks as chat: /remember must not store
        (and so put into every later prompt) what the guard refuses in a message."""
        incoming = turn.incoming
        args = incoming.text
        if len(args) > self._max_chars:
            text = TOO_LONG_TEXT[reply_language(args[:500])].format(limit=self._max_chars)
            return self._rejected(text, "bad_input", why="too_long", chars=len(args))
        if args.strip():
            verdict = self._guard.check_input(args)
            if verdict.refusal is not None:
                return self._notice(verdict.refusal, _INPUT_REASON.get(verdict.reason or "", verdict.reason or "refused"))
        result = await self._router.dispatch(turn, incoming.command, args)
        reason = "command" if incoming.command in self._router else "unknown_command"
        return Notice(result.text, reason, incoming.trace_id, dict(result.extra))

    # ------------------------------------------------------------------ admission
    async def _answer(self, turn: Turn, skill: Skill) -> AsyncIterator[ReplyEvent]:
        incoming = turn.incoming
        if not incoming.text.strip():
            yield self._rejected(EMPTY_TEXT, "bad_input", why="empty", chars=len(incoming.text))
            return
        if len(incoming.text) > self._max_chars:
            await self._store_user(turn, "too_long")
            lang = reply_language(incoming.text[:500])
            text = TOO_LONG_TEXT[lang].format(limit=self._max_chars)
            yield self._rejected(text, "bad_input", why="too_long", chars=len(incoming.text))
            return
        verdict = self._guard.check_input(incoming.text)
        if verdict.refusal is not None:
            await self._store_user(turn, verdict.reason or "refused")
            yield self._notice(verdict.refusal, _INPUT_REASON.get(verdict.reason or "", verdict.reason or "refused"))
            return
        if not verdict.text.strip():  # only invisible or control characters
            await self._store_user(turn, "empty")
            yield self._rejected(EMPTY_TEXT, "bad_input", why="empty", chars=len(incoming.text))
            return
        if not self.running.reserve(turn.person_id):
            await self._store_user(turn, "busy")
            yield self._rejected(BUSY_TEXT, "busy", why="busy", chars=len(incoming.text))
            return
        try:
            async with aclosing(self._admitted(turn, skill, verdict.text)) as events:
                async for event in events:
                    yield event
        finally:
            self.running.release(turn.person_id)

    async def _admitted(self, turn: Turn, skill: Skill, text: str) -> AsyncIterator[ReplyEvent]:
        lease = await self._guard.admit(turn)
        if isinstance(lease, Refusal):
            await self._store_user(turn, "rate_limited")
            extra = {"limit": lease.reason, "retry_after_s": lease.retry_after_s}
            yield self._notice(lease.text, "rate_limited", extra)
            return
        try:
            await self._store_user(turn, "ok")
            turn = replace(turn, incoming=replace(turn.incoming, text=text))
            async with aclosing(self._in_task(turn, skill)) as events:
                async for event in events:
                    yield event
        finally:
            lease.release()

    # ------------------------------------------------------------------ the reply task
    async def _in_task(self, turn: Turn, skill: Skill) -> AsyncIterator[ReplyEvent]:
        """Run the reply in its own task (so /cancel can stop it) and pass its events on.

        A cancelled reply yields nothing more; the consumer leaving early cancels the task too.
        """
        queue: asyncio.Queue = asyncio.Queue()
        task = asyncio.create_task(self._produce(turn, skill, queue))
        self.running.attach(turn.person_id, task)
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
        progress = ReplyProgress()
        try:
            async with aclosing(self._reply(turn, skill, progress)) as events:
                async for event in events:
                    progress.see(event)
                    if not isinstance(event, LevelStart):
                        queue.put_nowait(event)
        except asyncio.CancelledError:
            if not progress.finished:
                log.info("reply_cancelled", fallback_level=progress.level, chars=len(progress.text))
                if progress.text:
                    await asyncio.shield(self._store_reply(turn, progress.text, progress.level, "cancelled"))
            raise
        finally:
            queue.put_nowait(_END)

    async def _reply(self, turn: Turn, skill: Skill, progress: ReplyProgress) -> AsyncIterator[ReplyEvent | LevelStart]:
        started, deadline = self._clock(), self._ladder.deadline()
        if not self._ladder.has_llm and await self._storage.chats.claim_no_llm_notice(turn.incoming.chat_key):
            yield self._notice(NO_LLM_TEXT, "no_llm")
        messages = await self._context.build(turn, self._guard.harden(skill.system_prompt))
        request = LadderRequest(messages, skill, turn.incoming.text, _tool_context(turn), deadline)
        try:
            outcome = None
            async with aclosing(self._guarded.run(request, progress)) as events:
                async for event in events:
                    if isinstance(event, Outcome):
                        outcome = event
                    else:
                        yield event
        except LLMConfigError as exc:
            log.error("llm_config_error", status=exc.status, error=type(exc).__name__)
            if progress.text:
                yield TextReset("config_error")
            yield self._notice(CONFIG_ERROR_TEXT.format(trace=turn.incoming.trace_id), "config_error")
            return
        answer = outcome.answer
        await self._finish(turn, answer, outcome.status, started)
        progress.finished = True
        yield FinalReply(answer.text, answer.citations, answer.level, turn.incoming.trace_id)

    async def _finish(self, turn: Turn, answer: Answer, status: str, started: float) -> None:
        await self._store_reply(turn, answer.text, answer.level, status)
        if answer.usage is not None:
            await self._guard.record_usage(turn, answer.usage)
        self._schedule(self._after_reply(turn, answer.text))
        log.info(
            "reply", fallback_level=answer.level, status=status, skill=turn.skill, citations=len(answer.citations),
            latency_ms=round((self._clock() - started) * 1000, 1),
            prompt_tokens=answer.usage.prompt_tokens if answer.usage else None,
            completion_tokens=answer.usage.completion_tokens if answer.usage else None,
        )

    # ------------------------------------------------------------------ helpers
    def _notice(self, text: str, reason: str, extra: dict | None = None) -> Notice:
        return Notice(text, reason, current_trace_id(), extra or {})

    def _rejected(self, text: str, reason: str, *, why: str, chars: int) -> Notice:
        """A notice for input turned away before admission, logged (ids and size, not the text)."""
        log.info("input_rejected", reason=why, chars=chars)
        return self._notice(text, reason)

    async def _store_user(self, turn: Turn, status: str) -> int:
        incoming = turn.incoming
        return await self._storage.messages.add(
            incoming.chat_key, "user", incoming.text, person_id=turn.person_id, account=incoming.account,
            speaker=incoming.user_name, status=status, trace_id=incoming.trace_id,
        )

    async def _store_reply(self, turn: Turn, text: str, level: int | None, status: str) -> int:
        return await self._storage.messages.add(
            turn.incoming.chat_key, "assistant", text, level=level, status=status, trace_id=turn.incoming.trace_id,
        )

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
        person_id=turn.person_id, platform=incoming.platform, chat_id=incoming.chat_id,
        is_group=incoming.is_group, trace_id=incoming.trace_id,
        extra={"chat_key": incoming.chat_key, "account": incoming.account, "is_admin": turn.is_admin},
    )
