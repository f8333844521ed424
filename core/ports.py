"""Ports between the engine (core/engine/) and the parts that plug into it.

The engine calls these; memory (core/memory), guards (core/guards) and retrieval (core/retrieval)
implement them. Keeping them here lets each part be built and tested on its own.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from core.events import ReplyEvent
from core.llm.types import Message, Usage
from core.shown_in import ShownIn
from core.types import Incoming, Passage

# ---------------------------------------------------------------- the engine, as adapters see it


class Engine(Protocol):
    """What every adapter drives (core.engine.service.ChatService implements it).

    `handle` yields TextDelta / TextReset / ToolStep events, then one FinalReply or Notice; the stream
    always ends cleanly. An adapter that stops reading early closes it (`contextlib.aclosing`), which
    cancels the reply.
    """

    def handle(self, incoming: Incoming) -> AsyncGenerator[ReplyEvent, None]: ...

    def commands(self) -> list[tuple[str, str, str]]:
        """(name, summary_zh, summary_en) of every command, for platform menus."""
        ...

    def skills(self) -> list[tuple[str, str]]:
        """(name, display) of every skill, for /skill choices and buttons."""
        ...

    def models(self) -> list[str]:
        """The models a chat may pick with `/settings model` (the default first); empty: no choice."""
        ...

    async def record_shown(self, trace_id: str, where: ShownIn, part: int | None = None) -> bool:
        """Where a reply is shown: its own platform message (``part`` None: a crash is corrected
        there, a reaction finds it) or message ``part`` of the answer (0 the first; a reaction finds
        it: the later parts of a split answer, a message no restarted process could edit). False
        when the reply's row was not written yet (nothing noted: the adapter notes it again later)."""
        ...

    async def record_delivery(self, trace_id: str, delivered: bool) -> None:
        """Whether a reply's final text reached the chat after the adapter's retries."""
        ...

    async def record_feedback(
        self, platform: str, account: str, reaction: str, *, where: ShownIn | None = None, trace_id: str | None = None
    ) -> str:
        """A reaction on an answer (found by `where` it is shown, or its `trace_id`): "up", "down",
        "cleared" or "ignored" (not an answer of Fuzi's)."""
        ...

    def take_interrupted(self, platform: str) -> list[ShownIn]:
        """Where the replies a crash cut short are shown on `platform` (each handed out once); a
        `message_id` of None: nothing was shown, the adapter says so in a new message."""
        ...

    async def look_up(self, platform: str, user_id: str, query: str, k: int = 10) -> LookupResult:
        """Cited passages from retrieval alone (core.engine.lookup): inline mode, /passage."""
        ...

    def register_admin_check(self, platform: str, check: AdminCheck) -> None:
        """The adapter's answer to "is this user an admin of this group?" (core.chatsettings.admins)."""
        ...


@dataclass(frozen=True)
class LookupResult:
    """Passages, best first; or none with a one-line `hint` (empty query, limited, nothing found)."""

    passages: tuple[Passage, ...] = ()
    hint: str | None = None
    limited: bool = False


class AdminCheck(Protocol):
    """The platform's answer to "does this user administer this group chat?" (adapters fill it)."""

    async def is_admin(self, chat_id: str, user_id: str, *, fresh: bool = False) -> bool:
        """True for an administrator or the owner. `fresh`: do not trust a cached "yes" (a change
        is about to be made; someone demoted a moment ago must be refused). May raise on failure."""
        ...


@dataclass(frozen=True)
class Turn:
    """What the engine knows about the message being answered.

    Attributes:
        incoming: the message as the adapter delivered it.
        person_id: canonical person id; linked accounts on several platforms share it.
        skill: the chat's current skill name.
        is_admin: sender is in FUZI_ADMIN_IDS.
    """

    incoming: Incoming
    person_id: int
    skill: str
    is_admin: bool = False


# ---------------------------------------------------------------- memory


class ContextBuilder(Protocol):
    """Builds the model input for a turn and learns from the finished exchange (core/memory)."""

    async def build(self, turn: Turn, system_prompt: str) -> list[Message]:
        """System rules + profile + facts + summary + window + the current message, within budget."""
        ...

    async def after_reply(self, turn: Turn, reply_text: str) -> None:
        """Called once the reply is stored: fold overflow into the summary, update the profile.

        Must not delay the reply: slow work is scheduled, failures are logged and change nothing.
        """
        ...


# ---------------------------------------------------------------- guards


@dataclass(frozen=True)
class InputVerdict:
    """Result of the input checks: the cleaned text, or a refusal to send instead of an answer."""

    text: str
    refusal: str | None = None
    reason: Literal["empty", "injection"] | None = None


@dataclass(frozen=True)
class OutputVerdict:
    """ok: show it; block: replace with `replacement`; regenerate: ask the model again once."""

    action: Literal["ok", "block", "regenerate"]
    replacement: str | None = None
    reason: str | None = None
    # While streaming (final=False) with action "ok": when set, show only text[:safe_len]; the rest
    # may be the start of a leak (e.g. the first characters of the canary) and is held back.
    safe_len: int | None = None


@dataclass(frozen=True)
class Refusal:
    """A limit said no: `text` is the in-persona reply saying when to ask again."""

    text: str
    reason: str
    retry_after_s: float | None = None


class Guard(Protocol):
    """Everything the engine checks before and after the model (core/guards)."""

    def check_input(self, text: str) -> InputVerdict: ...

    async def review_input(self, text: str) -> InputVerdict:
        """`check_input`, plus a second opinion (an LLM call) where the local check is unsure."""
        ...

    async def admit(self, turn: Turn) -> Refusal | None:
        """Count the turn against the sender's limits; a Refusal when one says no."""
        ...

    def check_output(self, text: str, *, final: bool) -> OutputVerdict: ...

    def harden(self, system_prompt: str) -> str:
        """Return the system prompt with the data-not-instructions rules and the canary added."""
        ...

    def usage_recorder(self, turn: Turn, usage: Usage) -> Callable[[], None] | None:
        """A blocking write of a reply's token usage to the person's day, which the engine runs in a
        worker thread after the reply's own write (one hop for both); it never raises. None: none."""
        ...


# ---------------------------------------------------------------- commands


@dataclass(frozen=True)
class CommandResult:
    """What a command handler returns; `extra` carries structured data for adapters (e.g. choices)."""

    text: str
    extra: dict[str, Any] = field(default_factory=dict)


class CommandHandler(Protocol):
    async def __call__(self, turn: Turn, args: str) -> CommandResult: ...


class AwaitedAnswers(Protocol):
    """A part that asked the person something in a chat and takes their next message there as the
    answer (core/recite: the open cloze card). The engine asks it before answering a message."""

    def awaited(self, chat_key: Any, person_id: Any) -> Any:
        """An SQL condition (SQLAlchemy) on the person id column `person_id`: true when an answer is
        awaited from that person in chat `chat_key` (a key, or a bound parameter standing for one).
        It is part of the message's first read (core/storage/arrival.py, built once per part);
        `answer` is asked only when it held."""
        ...

    async def answer(self, turn: Turn) -> CommandResult | None:
        """The reply when `turn` answered what was asked; None: an ordinary message (answer it)."""
        ...


class PersonData(Protocol):
    """Data a part keeps per person beyond memory's own: `/forget all` deletes it, `/memories` names it."""

    async def forget_person(self, person_id: int) -> int:
        """Delete everything kept for the person; returns how many items went."""
        ...

    async def describe_person(self, person_id: int) -> str | None:
        """One line for /memories (e.g. "背诵卡组 12 张"), or None when nothing is kept."""
        ...


# ---------------------------------------------------------------- the classics, as tools, look-ups and L2 read them


class SearchHit(Protocol):
    """One passage a search found (read-only: frozen dataclasses conform)."""

    @property
    def id(self) -> str: ...
    @property
    def ref(self) -> str: ...
    @property
    def text(self) -> str: ...


class SearchHits(Protocol):
    """A search's results, best first."""

    @property
    def results(self) -> Sequence[SearchHit]: ...


class PassageSearch(Protocol):
    """The one passage-search type: the classics tools, the retrieval-only look-ups and the L2 answer
    read the texts through it (core.retrieval.HybridRetriever is one).

    `search` ranks passages for a query; `find_quote` finds the passages that contain a line word
    for word (exact=True) or else the closest keyword matches; `get` and `neighbours` read passages
    by id (`neighbours`: up to `n` before and after, in the same chapter or section).
    """

    async def search(self, query: str, *, k: int = ..., corpus: str = ...) -> SearchHits: ...
    async def find_quote(self, text: str, *, k: int = ...) -> tuple[Sequence[SearchHit], bool]: ...
    async def get(self, passage_id: str) -> SearchHit | None: ...
    async def neighbours(self, passage_id: str, n: int = ...) -> Sequence[SearchHit]: ...
