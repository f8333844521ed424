"""The fallback ladder: L0 agent with tools → L1 the same prompt without tools → L2 retrieval only.

Only *availability* failures (`LLMUnavailable`: open circuit, 5xx, timeouts) step down a level;
a timeout (`LLMTimeout`: no first token, a stall) steps down to L2 at once, since L1 would ask the
same hanging endpoint.
One reply deadline covers the whole ladder: L0 and L1 share the time up to the deadline less a small
reserve for L2; when it is up, the running level is cancelled and the ladder answers from L2 at once
(a `DeadlineExceeded`, which is an `LLMUnavailable`: degraded, never a config error).
`LLMConfigError` (400/401/403 …) propagates: degrading would hit the same wall, so the caller tells
the user in one line and operators in an ERROR log. With no LLM configured the ladder starts at L2.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import dataclass, replace
from typing import Protocol

import structlog

from core.agent.types import AgentEvent, AgentResult
from core.books import is_later
from core.books.named import held_english, held_titles
from core.citations import CitationBook
from core.events import Citation, TextDelta, TextReset, ToolStep
from core.language import Language
from core.llm.budget import ReplyBudget, reply_budget
from core.llm.errors import LLMTimeout, LLMUnavailable
from core.llm.types import LLM, Message, StreamDelta, StreamDone, Usage
from core.ports import PassageSearch
from core.skills import Skill, reply_language
from core.texts import say
from core.tools.tool import ToolContext
from core.tools.toolset import Toolset
from core.types import Passage

log = structlog.get_logger(__name__)

L2_RESERVE_S = 5.0  # kept for L2 before the reply deadline (retrieval has its own 3 s budget)
L2_PASSAGE_CHARS = 160  # a passage longer than this is shortened in a retrieval-only answer
L2_TOPIC_K = 6  # passages named in a retrieval-only answer to a topic survey


class EmptyAnswer(LLMUnavailable):
    """The plain LLM (L1) streamed nothing showable: blank text or only citation markers."""


class DeadlineExceeded(LLMUnavailable):
    """The reply deadline (less the L2 reserve) passed while an LLM level was still running."""


@dataclass(frozen=True)
class LevelStart:
    """Internal: the ladder starts trying `level` (the engine tracks it; adapters never see it)."""

    level: int
    kind: str = "level_start"


@dataclass(frozen=True)
class Answer:
    """Internal: the ladder's finished answer, citation markers already cleaned."""

    text: str
    citations: tuple[Citation, ...]
    level: int
    usage: Usage | None = None
    kind: str = "answer"


LadderEvent = TextDelta | TextReset | ToolStep | LevelStart | Answer


@dataclass(frozen=True)
class LadderRequest:
    """One reply to produce.

    Attributes:
        messages: the model input (hardened system prompt, context, the question).
        skill: decides the tool filter and the L2 corpus; the agent only sees prompt and tools.
        question: the user's text, searched for in L2 and used to pick the reply language.
        ctx: the tool context for this turn.
        deadline: when the reply must be done, on the ladder's clock (`FallbackLadder.deadline()`);
            None: the ladder starts the deadline itself when it runs.
    """

    messages: list[Message]
    skill: Skill
    question: str
    ctx: ToolContext
    deadline: float | None = None

    def with_message(self, message: Message) -> LadderRequest:
        """The same request with one more message appended (e.g. a reminder before regenerating)."""
        return replace(self, messages=[*self.messages, message])


class AgentRunner(Protocol):
    """What the ladder needs from the ReAct agent (core/agent.Agent): its tools and `run`."""

    tools: Toolset

    def run(
        self,
        messages: list[Message],
        *,
        allowed_tools: list[str] | None,
        ctx: ToolContext,
        citations: CitationBook,
        language: Language | None = None,
    ) -> AsyncGenerator[AgentEvent, None]: ...


class FallbackLadder:
    """Produces one reply, stepping down a level when the LLM is unavailable or time is up.

    Args:
        agent: the ReAct agent (L0), or None to skip L0.
        llm: the LLM port used for L1, or None when no key is configured (then L2 only).
        retriever: searched for L2 answers; None gives the in-persona "nothing found" answer.
        l2_k: passages in a retrieval-only answer.
        deadline_s: wall time for the whole reply, all levels together; None: no ladder deadline
            (each level then stops only by its own limits).
        l2_reserve_s: the part of the deadline kept for L2 (at most a quarter of `deadline_s`).
        degrade_after_s: when the model has sent no token this long after the ladder started, the
            LLM levels give up and L2 answers (a hang is not waited out); once tokens flow only the
            deadline applies. None: no such limit. Enforced by the LLM client through the reply's
            budget (core/llm/budget.py).
        clock: monotonic clock (seconds) the deadline is measured on.
    """

    def __init__(
        self,
        *,
        agent: AgentRunner | None,
        llm: LLM | None,
        retriever: PassageSearch | None,
        l2_k: int = 3,
        deadline_s: float | None = None,
        l2_reserve_s: float = L2_RESERVE_S,
        degrade_after_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self._agent = agent
        self._llm = llm
        self._retriever = retriever
        self._l2_k = l2_k
        self._deadline_s = deadline_s
        self._reserve_s = 0.0 if deadline_s is None else min(l2_reserve_s, deadline_s / 4)
        self._degrade_after_s = degrade_after_s
        self._clock = clock

    @property
    def has_llm(self) -> bool:
        return self._llm is not None

    def deadline(self) -> float | None:
        """The deadline of a reply starting now, on the ladder's clock; None when there is none."""
        return None if self._deadline_s is None else self._clock() + self._deadline_s

    async def run(self, request: LadderRequest) -> AsyncGenerator[LadderEvent, None]:
        """Yield text, tool steps and resets as they happen, then exactly one Answer."""
        deadline = request.deadline if request.deadline is not None else self.deadline()
        llm_until = None if deadline is None else deadline - self._reserve_s
        levels = []
        if self._llm is not None:
            levels = [(0, self._level0)] if self._agent is not None else []
            levels.append((1, self._level1))
        first_by = None if self._degrade_after_s is None else self._clock() + self._degrade_after_s
        with reply_budget(ReplyBudget(llm_until, first_by, self._clock)):
            async with aclosing(self._llm_levels(request, levels, llm_until)) as events:
                async for event in events:
                    yield event
                    if isinstance(event, Answer):
                        return
        yield LevelStart(2)
        yield await self._level2(request)

    async def _llm_levels(
        self, request: LadderRequest, levels: list, llm_until: float | None
    ) -> AsyncGenerator[LadderEvent, None]:
        """L0 then L1 until one answers; ends without an Answer when both failed or time is up."""
        for level, attempt in levels:
            if llm_until is not None and llm_until <= self._clock():
                log.warning("fallback", from_level=level, to_level=2, reason="deadline", skipped=True)
                break
            streamed = False
            try:
                yield LevelStart(level)
                async with aclosing(self._until(attempt(request), llm_until)) as events:
                    async for event in events:
                        streamed = streamed or isinstance(event, TextDelta)
                        yield event
                return
            except LLMUnavailable as exc:
                # the client gives up at the deadline too (core/llm/budget.py): whoever fired first
                late = isinstance(exc, DeadlineExceeded) or (llm_until is not None and llm_until <= self._clock())
                hung = isinstance(exc, LLMTimeout)  # L1 asks the same endpoint: it would hang too
                reason = "deadline" if late else "timeout" if hung else "unavailable"
                log.warning(
                    "fallback",
                    from_level=level,
                    to_level=2 if late or hung else level + 1,
                    reason=reason,
                    error=type(exc).__name__,
                )
                if streamed:
                    yield TextReset("fallback")
                if late or hung:
                    break

    async def _until(
        self, events: AsyncGenerator[LadderEvent, None], until: float | None
    ) -> AsyncGenerator[LadderEvent, None]:
        """`events`, each awaited within the time left before `until` (None: no limit).

        Only the wait for the next event runs under `asyncio.timeout`, never a `yield`: the expiry
        cancels the level's own awaits (the HTTP request, a tool call), not whatever the consumer
        awaits between two events. On expiry the level is closed and DeadlineExceeded raised.

        Raises:
            DeadlineExceeded: `until` passed before the level finished.
        """
        async with aclosing(events):
            while True:
                left = None if until is None else until - self._clock()
                if left is not None and left <= 0:
                    raise DeadlineExceeded("the reply deadline passed")
                timer = asyncio.timeout(left)
                try:
                    async with timer:
                        event = await anext(events)
                except StopAsyncIteration:
                    return
                except TimeoutError:
                    if not timer.expired():  # a level's own TimeoutError, not the deadline
                        raise
                    raise DeadlineExceeded("the reply deadline passed") from None
                yield event

    # ------------------------------------------------------------------ L0
    async def _level0(self, request: LadderRequest) -> AsyncGenerator[LadderEvent, None]:
        agent = self._agent
        assert agent is not None, "L0 runs only with an agent"
        book = CitationBook()
        allowed = self._allowed_tools(agent, request.skill)
        result: AgentResult | None = None
        async with aclosing(
            agent.run(
                request.messages,
                allowed_tools=allowed,
                ctx=request.ctx,
                citations=book,
                language=reply_language(request.question),
            )
        ) as events:
            async for event in events:
                if isinstance(event, AgentResult):
                    result = event
                else:
                    yield event
        if result is None:
            raise RuntimeError("agent stream ended without a result")
        yield Answer(result.text, result.citations, 0, result.usage)

    def _allowed_tools(self, agent: AgentRunner, skill: Skill) -> list[str] | None:
        """None (every tool) when the skill allows all; else the permitted names of the agent's tools."""
        if skill.allowed_tools == "all" and not skill.denied_tools:
            return None
        return skill.allowed(agent.tools.names)

    # ------------------------------------------------------------------ L1
    async def _level1(self, request: LadderRequest) -> AsyncGenerator[LadderEvent, None]:
        """Plain streamed completion with the same prompt; no passages, so every [n] is removed.

        Raises:
            EmptyAnswer: nothing is left to show, so the ladder steps down to L2 (never an empty reply).
        """
        llm = self._llm
        assert llm is not None, "L1 runs only with an LLM"
        cleaner = CitationBook().stream()
        shown: list[str] = []
        usage = None
        async with aclosing(llm.stream(request.messages)) as events:
            async for event in events:
                if isinstance(event, StreamDelta):
                    shown.append(cleaner.feed(event.text))
                    if shown[-1]:
                        yield TextDelta(shown[-1])
                elif isinstance(event, StreamDone):
                    usage = event.completion.usage
        shown.append(cleaner.flush())
        if shown[-1]:
            yield TextDelta(shown[-1])
        text = "".join(shown).strip()
        if not text:
            raise EmptyAnswer("the model answered nothing")
        yield Answer(text, (), 1, usage)

    # ------------------------------------------------------------------ L2
    async def _level2(self, request: LadderRequest) -> Answer:
        """The best passages for the question, each quoted with its [n], under a persona preface."""
        lang = reply_language(request.question)
        passages, topic, unheld = await self._passages(request.question, request.skill.corpus)
        if not passages:
            return Answer(_and(unheld, say("L2_NOTHING", lang)), (), 2)
        book = CitationBook()
        lines = [_and(unheld, say("L2_TOPIC_PREFACE" if topic else "L2_PREFACE", lang)), ""]
        for passage in passages:
            n = book.number(passage)
            # a topic survey names several fitting passages (reference and opening line), it does not
            # quote one poem in full; a later book's words are introduced by their reference, never
            # as the Master's own
            if topic:
                lines.append(f"{passage.ref}「{_opening(passage.text)}」[{n}]")
            else:
                later = is_later(passage.id)
                lines.append(f"{passage.ref + '：' if later else ''}「{_shorten(passage.text)}」[{n}]")
        text, citations = book.finalize("\n".join(lines))
        return Answer(text, citations, 2)

    async def _passages(self, question: str, corpus: str) -> tuple[list[Passage], bool, str]:
        """The best passages overall; a skill that prefers one book gets that book's passages next.

        The overall best stays first so that a verbatim quote from the other book is never lost
        (the poetry skill asked 学而时习之 still cites the Analects first).
        """
        if self._retriever is None or not question.strip():
            return [], False, ""
        best, topic, unheld = await self._search(question, "all")
        if topic:  # a topic survey: the theme's passages, best known first, several of them
            return best, True, unheld  # _search cut a survey to L2_TOPIC_K
        preferred = (await self._search(question, corpus))[0] if corpus != "all" and best else []
        merged = {p.id: p for p in [*best[:1], *preferred, *best[1:]]}
        return list(merged.values())[: self._l2_k], False, unheld

    async def _search(self, question: str, corpus: str) -> tuple[list[Passage], bool, str]:
        """(passages, whether the retriever answered a topic survey, the line saying which books
        Fuzi reads when the question names one it does not)."""
        k = max(self._l2_k, L2_TOPIC_K)
        if self._retriever is None:
            return [], False, ""
        try:
            response = await self._retriever.search(question, k=k, corpus=corpus)
        except Exception:
            log.exception("l2_search_failed", corpus=corpus)
            return [], False, ""
        topic = bool(getattr(response, "topic", None))
        hits = [
            Passage(id=hit.id, ref=hit.ref or hit.id, corpus="", title="", text=hit.text) for hit in response.results
        ]
        return hits[: L2_TOPIC_K if topic else self._l2_k], topic, _not_held(question, response)


def _not_held(question: str, response: object) -> str:
    """BOOKS_NOT_HELD for a question naming books the index does not hold, else ""."""
    unheld, held = getattr(response, "unheld", ()), getattr(response, "held", ())
    if not unheld:
        return ""
    lang = reply_language(question)
    if lang == "en":
        return say("BOOKS_NOT_HELD", lang, held=held_english(held), named=" and ".join(unheld))
    return say("BOOKS_NOT_HELD", lang, held=held_titles(held), named="".join(f"《{n}》" for n in unheld))


def _and(first: str, then: str) -> str:
    return f"{first}\n{then}" if first else then


def _opening(text: str) -> str:
    """The first sentence of a passage (its opening line), for naming it in a list."""
    text = " ".join(text.split())
    end = min((i for i in (text.find(c) for c in "。！？；") if i >= 0), default=len(text) - 1)
    return _shorten(text[: end + 1])


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= L2_PASSAGE_CHARS else text[:L2_PASSAGE_CHARS].rstrip() + "……"
