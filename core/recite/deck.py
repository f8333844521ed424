"""A person's recitation: the next card, the answer to it, its rating (core/recite/__init__.py).

`/recite` opens the most overdue card of the person's deck in the chat (a cloze of one line); the
person's next message in that chat is the answer (`answer`, the engine's `AwaitedAnswers`): right
schedules the card "good", wrong "again" and shows the words and the whole passage with its
citation; buttons (or `/recite again|hard|good|easy`) change that rating afterwards. An empty deck
starts from the starter deck: the well-known passages of each book the loaded corpus has.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import structlog

from core.books import book
from core.ports import CommandResult, Turn
from core.recite.check import MAX_ANSWER_CHARS, check, norm
from core.recite.cloze import make_cloze
from core.recite.models import ReciteCard, ReciteOpen, ReciteReview
from core.recite.scheduling import RATINGS, RatingName
from core.recite.store import ReciteStore
from core.storage.chatlog import aware
from core.texts import say
from core.types import Passage

log = structlog.get_logger(__name__)

CARD_TTL = timedelta(minutes=30)
"""An open card takes its answer this long; later, an answer-like message is told the card expired."""
DEFAULT_ZONE = "Asia/Shanghai"
STARTER: tuple[str, ...] = (
    "lunyu:1.1",  # 学而时习之
    "lunyu:1.4",  # 吾日三省吾身
    "lunyu:2.4",  # 吾十有五而志于学
    "lunyu:2.11",  # 温故而知新
    "lunyu:2.15",  # 学而不思则罔
    "lunyu:2.17",  # 知之为知之
    "lunyu:4.8",  # 朝闻道
    "lunyu:7.22",  # 三人行
    "lunyu:12.2",  # 己所不欲，勿施于人
    "shijing:1",  # 关雎
    "shijing:6",  # 桃夭
    "shijing:129",  # 蒹葭
    "shijing:91",  # 子衿
    "mengzi:1.3",  # 寡人之于国也
    "mengzi:14.14",  # 民为贵
    "mengzi:11.10",  # 鱼我所欲也
    "mengzi:12.15",  # 生于忧患，死于安乐
    "daxue:1",  # 大学之道
    "zhongyong:1",  # 天命之谓性
)
"""The starter deck; ids the loaded corpus lacks (books not loaded yet) are left out."""
RATING_LABELS = {"again": "重来 again", "hard": "难 hard", "good": "好 good", "easy": "易 easy"}


def both(name: str, **fields: object) -> str:
    """A text in Chinese, then English on its own line."""
    return f"{say(name, 'zh', **fields)}\n{say(name, 'en', **fields)}"


def utcnow() -> datetime:
    return datetime.now(UTC)


class Recitation:
    """The cards, answers and ratings of every person (see the module docstring).

    Args:
        store: the recitation tables.
        passages: every passage of the loaded corpus (core.retrieval.documents.load_corpus).
        now: the wall clock (aware); tests pass a fake one.
        card_ttl: how long an open card waits for its answer.
        zone: the zone due times are shown in when the person set no reminder.
    """

    def __init__(
        self,
        store: ReciteStore,
        passages: Sequence[Passage],
        *,
        now: Callable[[], datetime] = utcnow,
        card_ttl: timedelta = CARD_TTL,
        zone: str = DEFAULT_ZONE,
    ) -> None:
        self.store = store
        self.passages: Mapping[str, Passage] = {p.id: p for p in passages}
        self.now, self.card_ttl, self.zone = now, card_ttl, zone

    def starter_ids(self) -> list[str]:
        return [pid for pid in STARTER if pid in self.passages]

    # ---------------------------------------------------------------- /recite
    async def next_card(self, turn: Turn) -> CommandResult:
        """Open the most overdue card in this chat (seeding the starter deck when the deck is empty)."""
        person, now = turn.person_id, self.now()
        lead: list[str] = []
        if await self.store.count(person) == 0:
            added = await self.store.add(person, self.starter_ids(), now)
            if added:  # none when another replica seeded it at the same moment (or no book is loaded)
                books = "、".join(dict.fromkeys(book(pid.split(":")[0]).name for pid in added))
                lead.append(say("RECITE_STARTED", None, n=len(added), books=books))
                log.info("recite_starter_deck", person=person, cards=len(added))
        due, next_at = await self.store.next_due(person, now)
        card = next((c for c in due if c.passage_id in self.passages), None)
        if card is None:
            if next_at is None and not due:
                return CommandResult(both("RECITE_LIST_EMPTY"))
            when = await self.due_text(person, next_at) if next_at else "—"
            return CommandResult("\n".join([*lead, say("RECITE_NONE_DUE", None, when=when)]), extra={"due": 0})
        passage = self.passages[card.passage_id]
        cloze = make_cloze(passage.text, f"{card.id}:{card.reviews}")
        if cloze is None:  # a passage without a line to blank (never in the loaded books)
            return CommandResult(say("RECITE_NO_PASSAGE", None, id=card.passage_id))
        key = turn.incoming.chat_key
        replaced = await self.store.open(key, person, card.id or 0, cloze.line, cloze.phrase, now + self.card_ttl, now)
        if replaced:
            lead.append(say("RECITE_REPLACED", None))
        n = len(norm(cloze.phrase))
        body = f"{say('RECITE_CARD', 'zh', ref=passage.ref, shown=cloze.shown, n=n)}\n{say('RECITE_CARD', 'en', n=n)}"
        log.info("recite_card", person=person, card=card.id, passage=card.passage_id, replaced=replaced)
        extra = {"recite": {"card": card.id, "passage": card.passage_id, "shown": cloze.shown, "replaced": replaced}}
        return CommandResult("\n".join([*lead, body]), extra=extra)

    # ---------------------------------------------------------------- the answer
    def awaited(self, chat_key: Any, person_id: Any) -> Any:
        """The person has an open card in this chat (`AwaitedAnswers`): an EXISTS on `recite_open`."""
        return self.store.open_exists(chat_key, person_id)

    async def answer(self, turn: Turn) -> CommandResult | None:
        """The person's message in a chat with an open card is its answer (`AwaitedAnswers`)."""
        opened = await self.store.take_open(turn.incoming.chat_key, turn.person_id)
        if opened is None:
            return None
        text, now = turn.incoming.text, self.now()
        if aware(opened.expires_at) < now:
            if _answer_like(text, opened.phrase):
                log.info("recite_expired_answer", person=turn.person_id, card=opened.card_id)
                return CommandResult(say("RECITE_EXPIRED", None, minutes=int(self.card_ttl.total_seconds() // 60)))
            return None  # a question asked long after the card: answered as one
        verdict = check(text, opened.phrase, opened.line)
        n = len(norm(opened.phrase))
        if verdict.outcome in ("empty", "too_long"):
            await self.store.put_back(opened)
            name = "RECITE_EMPTY" if verdict.outcome == "empty" else "RECITE_TOO_LONG"
            return CommandResult(say(name, None, n=n, limit=MAX_ANSWER_CHARS), extra={"recite": {"open": True}})
        rating: RatingName = "good" if verdict.right else "again"
        done = await self.store.review(turn.person_id, opened.card_id, rating, verdict.right, now)
        if done is None:  # the card was removed (or answered by a racing replica) meanwhile
            return None
        review, card = done
        log.info("recite_answered", person=turn.person_id, card=card.id, right=verdict.right)
        return CommandResult(await self._result_text(turn, opened, review, card, text), extra=self._extra(review))

    async def _result_text(
        self, turn: Turn, opened: ReciteOpen, review: ReciteReview, card: ReciteCard, text: str
    ) -> str:
        due = await self.due_text(turn.person_id, aware(card.due))
        if review.correct:
            return f"{both('RECITE_RIGHT', phrase=opened.phrase, due=due)}\n{say('RECITE_RATE_HINT', 'zh')}"
        passage = self.passages.get(card.passage_id)
        answer = " ".join(text.split())[:40]
        fields = dict(phrase=opened.phrase, answer=answer, due=due)
        fields |= dict(text=passage.text if passage else opened.line, ref=passage.ref if passage else card.passage_id)
        return f"{both('RECITE_WRONG', **fields)}\n{say('RECITE_RATE_HINT', 'zh')}"

    @staticmethod
    def _extra(review: ReciteReview) -> dict:
        """Buttons for the rating (adapters render `actions`: label, command, arguments)."""
        actions = [(RATING_LABELS[r], "recite", f"rate {review.id} {r}") for r in RATINGS]
        return {"actions": actions, "current": review.rating, "recite": {"review": review.id, "right": review.correct}}

    # ---------------------------------------------------------------- ratings
    async def rerate(self, turn: Turn, rating: str, review_id: int | None = None) -> CommandResult:
        """Change the rating of the person's review `review_id` (a button), or of their newest one."""
        if rating not in RATINGS:
            return CommandResult(both("RECITE_USAGE"))
        if review_id is None:
            latest = await self.store.latest_review(turn.person_id)
            review_id = latest.id if latest is not None else None
        row = await self.store.rerate(turn.person_id, review_id, rating) if review_id is not None else None  # type: ignore[arg-type]
        if row is None:
            return CommandResult(say("RECITE_RERATE_GONE", None), extra={"refused": True})
        due = await self.due_text(turn.person_id, aware(row.due))
        log.info("recite_rerated", person=turn.person_id, review=row.id, rating=rating)
        return CommandResult(say("RECITE_RERATED", None, rating=rating, due=due), extra=self._extra(row))

    # ---------------------------------------------------------------- helpers
    async def zone_of(self, person_id: int) -> ZoneInfo:
        reminder = await self.store.reminder(person_id)
        try:
            return ZoneInfo(reminder.zone if reminder is not None else self.zone)
        except (KeyError, ValueError):
            return ZoneInfo(DEFAULT_ZONE)

    async def due_text(self, person_id: int, due: datetime) -> str:
        """A due time as the person reads it: local, to the minute."""
        return aware(due).astimezone(await self.zone_of(person_id)).strftime("%Y-%m-%d %H:%M")

    # ---------------------------------------------------------------- privacy (memory's PersonData)
    async def forget_person(self, person_id: int) -> int:
        return await self.store.forget(person_id)

    async def describe_person(self, person_id: int) -> str | None:
        n = await self.store.count(person_id)
        return say("RECITE_MEMORIES", None, n=n) if n else None


def _answer_like(text: str, phrase: str) -> bool:
    """Whether a message after an expired card reads as its answer: short, about the phrase's length."""
    got, want = norm(text), norm(phrase)
    return bool(got) and abs(len(got) - len(want)) <= 2 and not any(ch in text for ch in "?？吗嗎")
