"""Per-chat short-term state and the incremental summariser.

The window is the last N rounds (2N messages) of a chat. Messages that fell out of the window and
are not yet in the summary are the *overflow*; it is folded in batches: only once it holds
``fold_messages`` lines do they and the old summary go to the LLM, in one request, and the answer
replaces the summary. Until then the prompt shows them with the window (core/memory/context.py).
``summarized_upto`` advances only when a new summary was stored, so after a failure the same
overflow (plus whatever overflowed since) is folded in at the next attempt; the messages
themselves always stay stored.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import structlog
from sqlalchemy import Engine, bindparam, insert, select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, update

from core.llm.types import LLM
from core.memory.blocks import SUMMARY_PREFIX, clean_speaker
from core.memory.history import ChatHistory, Line
from core.memory.models import ChatMemory, utcnow
from core.prompts import TaskPrompt
from core.storage.conflict import begin_write, retry_on_conflict
from core.storage.guard import fit_values
from core.storage.rows import affected
from core.types import Quote

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class ChatState:
    """A chat's summary and the two message-id marks (see models.ChatMemory)."""

    summary: str = ""
    summarized_upto: int = 0
    window_start: int = 0

    @property
    def overflow_after(self) -> int:
        """Messages with a larger id than this are not yet summarised."""
        return max(self.summarized_upto, self.window_start)


_CM = ChatMemory.__table__  # type: ignore[attr-defined]
_STATE = select(_CM.c.summary, _CM.c.summarized_upto, _CM.c.window_start).where(_CM.c.chat_key == bindparam("b_chat"))
"""A chat's summary state (read at every fold), built once."""
_SAVE = update(_CM).where(
    _CM.c.chat_key == bindparam("b_chat"),
    _CM.c.summarized_upto == bindparam("b_upto"),
    _CM.c.window_start == bindparam("b_start"),
)
"""A fold's new summary, if the marks are still those it read (values bound at execution)."""


class ChatMemoryStore:
    """ChatMemory rows (sync methods; callers use worker threads).

    Args:
        engine: the shared SQLAlchemy engine (memory tables created).
    """

    def __init__(self, engine: Engine):
        self._engine = engine

    def get(self, chat_key: str) -> ChatState:
        with self._engine.connect() as c:
            row = c.execute(_STATE, {"b_chat": chat_key}).first()
        return ChatState(row.summary, row.summarized_upto, row.window_start) if row else ChatState()

    def save_summary(self, chat_key: str, summary: str, upto: int, expected: ChatState) -> bool:
        """Store a new summary unless the state changed meanwhile (e.g. a /reset); True if stored.

        One compare-and-set statement: UPDATE … WHERE the marks are the ones read; when that finds no
        row and the state read was a chat's first (no row then), the row is inserted, unless another
        writer made it first (then the state changed: nothing is stored)."""
        values = fit_values(_CM, {"summary": summary, "summarized_upto": upto, "updated_at": utcnow()})
        marks = {"b_chat": chat_key, "b_upto": expected.summarized_upto, "b_start": expected.window_start}
        try:
            with self._engine.begin() as c:
                if affected(c.execute(_SAVE, values | marks)) == 1:
                    return True
                if (expected.summarized_upto, expected.window_start) != (0, 0):  # the row read moved on
                    return False
                c.execute(insert(_CM), values | {"chat_key": chat_key, "window_start": 0})
                return True
        except IntegrityError:  # another writer made the chat's row meanwhile (rolled back)
            return False

    def reset(self, chat_key: str, upto: int) -> ChatState:
        """Hide every message up to ``upto`` from window and summary; returns the state before."""

        def run() -> ChatState:
            with Session(self._engine) as s:
                begin_write(s)
                row = s.get(ChatMemory, chat_key, with_for_update=True) or ChatMemory(chat_key=chat_key)
                before = ChatState(row.summary, row.summarized_upto, row.window_start)
                row.summary, row.summarized_upto, row.window_start = "", upto, max(upto, row.window_start)
                row.updated_at = utcnow()
                s.add(row)
                s.commit()
                return before

        return retry_on_conflict(run, chat=chat_key)

    def clear_summaries(self, chat_keys: list[str]) -> None:
        """Drop the summaries of these chats (their content may hold forgotten messages)."""
        if not chat_keys:
            return
        with Session(self._engine) as s:
            s.execute(update(ChatMemory).where(col(ChatMemory.chat_key).in_(chat_keys)).values(summary=""))
            s.commit()


def format_lines(lines: list[Line], *, is_group: bool, max_chars: int) -> str:
    """Overflow messages as text for the summariser; speakers named in groups; what a question
    quoted goes before it as 〔引用 author：…〕, marked as someone else's words."""
    out = []
    for line in lines:
        text = " ".join(line.text.split())[:max_chars]
        if line.role == "assistant":
            who = "夫子"
        else:
            who = f"用户[{clean_speaker(line.speaker)}]" if is_group else "用户"
            who += "".join(_quoted(quote, max_chars) for quote in sorted(line.quoted, key=lambda q: -q.depth))
        out.append(f"{who}：{text}")
    return "\n".join(out)


def _quoted(quote: Quote, max_chars: int) -> str:
    author = clean_speaker(quote.author, "某人") + ("（机器人）" if quote.from_bot else "")
    return f"〔引用 {author} 的话：{' '.join(quote.text.split())[:max_chars]}〕"


def clean_summary(text: str, max_chars: int) -> str:
    """The model's summary without an echoed label, cut to ``max_chars``."""
    text = text.strip()
    if text.startswith(SUMMARY_PREFIX):
        text = text[len(SUMMARY_PREFIX) :].strip()
    return text[:max_chars]


class Summarizer:
    """Folds a chat's overflow into its running summary.

    Args:
        llm: the LLM port.
        prompt: the "summary" task prompt (data/prompts/summary.yaml).
        history: stored-message queries.
        store: chat states.
        window_messages: messages kept verbatim (2 × window rounds).
        max_chars: longest summary kept.
        batch_messages: most overflow messages sent in one call (more are folded in further calls).
        line_chars: each overflow message is cut to this length.
        fold_messages: fewest overflow messages worth a call (less overflow waits for more).
    """

    def __init__(
        self,
        llm: LLM,
        prompt: TaskPrompt,
        history: ChatHistory,
        store: ChatMemoryStore,
        *,
        window_messages: int,
        max_chars: int = 300,
        batch_messages: int = 40,
        line_chars: int = 300,
        fold_messages: int = 1,
    ):
        self._llm, self._prompt, self._history, self._store = llm, prompt, history, store
        self.window_messages = window_messages
        self.max_chars = max_chars
        self.batch_messages = batch_messages
        self.line_chars = line_chars
        self.fold_messages = max(1, min(fold_messages, batch_messages))

    async def fold(self, chat_key: str, *, is_group: bool, max_rounds: int = 5) -> int:
        """Fold pending overflow into the summary once there are `fold_messages` lines of it;
        returns how many messages were folded.

        The state and the overflow are read together, fresh (a fold that went first, in this
        process or another, is seen); a state changed while the LLM wrote fails `save_summary`'s
        check and nothing is stored, so no line is ever folded twice.
        Raises whatever the LLM raises (the caller logs it); the stored state is then unchanged.
        """
        folded = 0
        for _ in range(max_rounds):
            state, overflow = await asyncio.to_thread(self._pending, chat_key)
            if len(overflow) < self.fold_messages:
                break
            summary = await self._summarise(state.summary, overflow, is_group)
            if not await asyncio.to_thread(self._store.save_summary, chat_key, summary, overflow[-1].id, state):
                break
            folded += len(overflow)
            log.info("summary_updated", chat=chat_key, folded=len(overflow), chars=len(summary))
            if len(overflow) < self.batch_messages:
                break
        return folded

    def _pending(self, chat_key: str) -> tuple[ChatState, list[Line]]:
        """The chat's state and its overflow (oldest first, at most `batch_messages`)."""
        state = self._store.get(chat_key)
        window = self._history.window(chat_key, after_id=state.window_start, limit=self.window_messages)
        if not window:
            return state, []
        overflow = self._history.between(
            chat_key, after_id=state.overflow_after, before_id=window[0].id, limit=self.batch_messages
        )
        return state, overflow

    async def _summarise(self, existing: str, overflow: list[Line], is_group: bool) -> str:
        messages = self._prompt.render(
            existing=existing or "（无）",
            new_messages=format_lines(overflow, is_group=is_group, max_chars=self.line_chars),
            max_chars=self.max_chars,
        )
        completion = await self._llm.complete(
            messages, temperature=self._prompt.temperature, max_tokens=self._prompt.max_tokens
        )
        summary = clean_summary(completion.text, self.max_chars)
        if not summary:
            raise ValueError("empty summary")
        return summary
