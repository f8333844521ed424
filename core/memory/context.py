"""The memory side of a turn: build the model input, and learn from the finished exchange."""

from __future__ import annotations

import asyncio
import json
import weakref
from collections import OrderedDict
from dataclasses import replace

import structlog
from sqlalchemy import Engine

from core.llm.types import Message
from core.memory.blocks import fact_line, profile_block, quoted_block, summary_message, user_content
from core.memory.budget import PromptParts, fit_to_budget
from core.memory.facts import FactStore
from core.memory.history import Line
from core.memory.profile import Batch, ProfileExtractor
from core.memory.reads import TurnReads, read_turn
from core.memory.summary import Summarizer
from core.ports import Turn

log = structlog.get_logger(__name__)

_KEPT_READS = 1000
"""Most turns whose reads wait for their `after_reply` (a reply that never finished leaves its own)."""


def speaker_of(turn: Turn) -> str:
    """The name that labels the current speaker in a group window."""
    return turn.incoming.user_name or turn.incoming.user_id


def window_messages(lines: list[Line], *, is_group: bool) -> list[Message]:
    """Stored lines as chat messages; user lines are data blocks, with speakers in groups, after the
    `<quoted>` blocks of what they quoted (as the question was asked: core/memory/quotes.py)."""
    while lines and lines[0].role != "user":  # never start with a reply whose question is gone
        lines = lines[1:]
    out: list[Message] = []
    for line in lines:
        if line.role == "assistant":
            out.append({"role": "assistant", "content": line.text})
        else:
            speaker = (line.speaker or line.account or "用户") if is_group else None
            out.append({"role": "user", "content": quoted_block(line.quoted) + user_content(line.text, speaker)})
    return out


def _with_reply(batch: Batch, trace_id: str, reply_text: str) -> Batch:
    """The batch as read before this turn's reply, with the reply (read, it was still empty)."""
    exchanges = [replace(e, reply=reply_text) if e.trace_id == trace_id else e for e in batch.exchanges]
    return replace(batch, exchanges=exchanges)


class MemoryContextBuilder:
    """Implements ``core.ports.ContextBuilder`` over the window, summary, facts and profile.

    A turn's four reads are one statement (core/memory/reads.py); what they found is kept for the
    turn's `after_reply`, which decides from it whether a fold or a profile extraction may be due.

    Args:
        engine: the shared SQLAlchemy engine (memory tables and messages).
        facts: long-term facts.
        summarizer: folds overflow into the summary after a reply; None disables summaries.
        profiler: extracts the profile from a batch of exchanges after a reply; None disables it.
        window_rounds: rounds (user + reply) kept verbatim.
        fold_rounds: rounds that leave the window before they are folded into the summary, in one
            request; until then the prompt shows them too (the window plus the unfolded tail).
            0: whatever leaves the window is folded after the reply.
        budget_tokens: estimated-token budget for the whole input.
        reserve_tokens: part of the budget kept free for tool results added by the agent.
        facts_in_prompt: most facts put into the system prompt (the most relevant ones).
    """

    def __init__(
        self,
        *,
        engine: Engine,
        facts: FactStore,
        summarizer: Summarizer | None,
        profiler: ProfileExtractor | None,
        window_rounds: int = 5,
        fold_rounds: int = 1,
        budget_tokens: int = 6000,
        reserve_tokens: int = 1500,
        facts_in_prompt: int = 5,
    ):
        self._engine, self._facts = engine, facts
        self._reads: OrderedDict[str, TurnReads] = OrderedDict()
        self._summarizer, self._profiler = summarizer, profiler
        self.window_rounds = window_rounds
        self.fold_rounds = fold_rounds
        self.budget_tokens = budget_tokens
        self.reserve_tokens = reserve_tokens
        self.facts_in_prompt = facts_in_prompt
        self._tasks: set[asyncio.Task] = set()
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    # ---------------------------------------------------------------- build
    async def build(self, turn: Turn, system_prompt: str) -> list[Message]:
        """System rules + profile + facts, then summary, window and the current message, in budget."""
        inc = turn.incoming
        reads = await asyncio.to_thread(
            read_turn,
            self._engine,
            inc.chat_key,
            turn.person_id,
            limit=2 * (self.window_rounds + self.fold_rounds),
            exclude_trace=inc.trace_id,
            in_group=inc.is_group,
            unextracted_limit=self._profiler.max_exchanges if self._profiler is not None else 0,
        )
        self._keep(inc.trace_id, reads)
        state, lines = reads.state, reads.unfolded
        facts = await self._facts.recall(
            turn.person_id, inc.text, self.facts_in_prompt, in_group=inc.is_group, rows=reads.facts
        )
        profile = json.loads(reads.profile) if reads.profile else {}
        parts = PromptParts(
            rules=system_prompt,
            current={
                "role": "user",
                "content": quoted_block(inc.quoted)
                + user_content(inc.text, speaker_of(turn) if inc.is_group else None),
            },
            profile_block=profile_block(profile, in_group=inc.is_group),
            fact_blocks=[fact_line(f.text, f.created_at) for f in facts],
            summary_message=summary_message(state.summary),
            window=window_messages(lines, is_group=inc.is_group),
        )
        fitted = fit_to_budget(parts, max(0, self.budget_tokens - self.reserve_tokens))
        log.info(
            "context_built",
            chat=inc.chat_key,
            person=turn.person_id,
            trace_id=inc.trace_id,
            window=len(fitted.window),
            trimmed=len(parts.window) - len(fitted.window),
            facts=len(fitted.fact_blocks),
            summary=bool(fitted.summary_message),
            tokens=fitted.tokens(),
        )
        return fitted.messages()

    # ---------------------------------------------------------------- after the reply
    def _keep(self, trace_id: str, reads: TurnReads) -> None:
        self._reads[trace_id] = reads
        while len(self._reads) > _KEPT_READS:
            self._reads.popitem(last=False)

    async def after_reply(self, turn: Turn, reply_text: str) -> None:
        """Schedule summary folding and profile extraction from what `build` read; returns at once.

        No fold until, with this turn's question and answer, `fold_rounds` rounds have left the
        window unfolded; no extraction until, with this turn's question, the person's questions
        waiting for it make a batch (`ProfileExtractor.batch_exchanges`, counted in any chat).
        """
        reads = self._reads.pop(turn.incoming.trace_id, None)
        if self._summarizer is not None and self._may_overflow(reads):
            self._spawn(self._fold(self._summarizer, turn), f"fold:{turn.incoming.chat_key}")
        profiler = self._profiler
        if profiler is not None and reply_text.strip() and self._may_extract(profiler, reads):
            read = _with_reply(reads.unextracted, turn.incoming.trace_id, reply_text) if reads else None
            self._spawn(self._extract(profiler, turn, read), f"profile:{turn.person_id}")

    def _spawn(self, coro, name: str) -> None:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _lock(self, key: str) -> asyncio.Lock:
        """One lock per chat / person, alive only while someone holds or awaits it."""
        lock = self._locks.get(key)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[key] = lock
        return lock

    def _may_overflow(self, reads: TurnReads | None) -> bool:
        """Whether folding may find a batch: unknown reads, or unfolded lines that, with this turn's
        question and answer, fill the window and `fold_rounds` rounds more (a read cut at its limit
        counts as full)."""
        return reads is None or len(reads.unfolded) + 2 >= 2 * self.window_rounds + max(2 * self.fold_rounds, 1)

    async def _fold(self, summarizer: Summarizer, turn: Turn) -> None:
        inc = turn.incoming
        async with self._lock(f"chat:{inc.chat_key}"):
            try:
                await summarizer.fold(inc.chat_key, is_group=inc.is_group)
            except Exception as exc:
                log.warning("summary_failed", chat=inc.chat_key, trace_id=inc.trace_id, error=type(exc).__name__)

    @staticmethod
    def _may_extract(profiler: ProfileExtractor, reads: TurnReads | None) -> bool:
        """Whether extraction may find a batch: unknown reads, or enough questions waiting."""
        return reads is None or len(reads.unextracted.exchanges) >= profiler.batch_exchanges

    async def _extract(self, profiler: ProfileExtractor, turn: Turn, read: Batch | None) -> None:
        async with self._lock(f"person:{turn.person_id}"):
            try:
                await profiler.extract(turn.person_id, read)
            except Exception as exc:
                log.warning(
                    "profile_failed", person=turn.person_id, trace_id=turn.incoming.trace_id, error=type(exc).__name__
                )

    @property
    def pending(self) -> int:
        """Background tasks not finished yet."""
        return len(self._tasks)

    async def drain(self, timeout: float | None = None) -> None:
        """Wait for scheduled work (tests; shutdown). After ``timeout`` the rest is cancelled."""
        try:
            await asyncio.wait_for(self._drain(), timeout)
        except TimeoutError:
            for task in list(self._tasks):
                task.cancel()
            log.warning("memory_drain_timeout", cancelled=len(self._tasks))

    async def _drain(self) -> None:
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
