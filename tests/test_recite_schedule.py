"""30 simulated days of recitation through the real ChatService with a fake clock: every due date the
deck stores equals the one the `fsrs` library computes for the same reviews (replayed here through
`fsrs.Scheduler` itself), ratings changed with the buttons included; and the deck survives a restart."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from fsrs import Card, Rating, Scheduler

from core.events import Notice
from core.storage.chatlog import aware
from core.types import Incoming
from tests.helpers_engine import collect, sqlite_storage
from tests.helpers_recite import Clock, recite_engine

RATING = {"again": Rating.Again, "hard": Rating.Hard, "good": Rating.Good, "easy": Rating.Easy}


def msg(text: str, command: str | None = None) -> Incoming:
    return Incoming(platform="console", user_id="yan", chat_id="dm-yan", text=text, user_name="颜回", command=command)


async def one(eng, message: Incoming) -> Notice:
    [notice] = await collect(eng.service, message)
    assert isinstance(notice, Notice)
    return notice


async def test_thirty_days_of_reviews_are_scheduled_exactly_as_fsrs_schedules_them(tmp_path):
    clock = Clock(datetime(2026, 3, 1, 0, 0, tzinfo=UTC))  # 08:00 in Asia/Shanghai
    eng = recite_engine(sqlite_storage(tmp_path), clock)
    fsrs = Scheduler(enable_fuzzing=False)
    mirror: dict[int, Card] = {}
    rng = random.Random(30)
    reviews = 0
    for day in range(30):
        clock.at = datetime(2026, 3, 1, 0, 0, tzinfo=UTC) + timedelta(days=day)
        session_end = clock.at + timedelta(hours=2)
        while clock.at < session_end:
            card = await one(eng, msg("", "recite"))
            if "recite" not in card.extra:  # nothing due now: wait for the next learning step
                nxt = min(aware(c.due) for c in await eng.deck.store.cards(1))
                if nxt >= session_end:
                    break
                clock.at = nxt
                continue
            card_id = card.extra["recite"]["card"]
            mirror.setdefault(card_id, Card(card_id=1, due=clock.at))
            opened = eng.open_card("console:dm-yan")
            right = rng.random() > 0.15
            answer = opened.phrase if right else "错" * len(opened.phrase)
            result = await one(eng, msg(answer))
            rating = "good" if right else "again"
            at = clock.at
            if right and rng.random() < 0.25:  # a button press changes the rating
                rating = rng.choice(["hard", "easy"])
                await one(eng, msg(f"rate {result.extra['recite']['review']} {rating}", "recite"))
            mirror[card_id], _ = fsrs.review_card(mirror[card_id], RATING[rating], review_datetime=at)
            stored = await eng.deck.store.card(1, card_id)
            assert stored is not None and aware(stored.due) == mirror[card_id].due, (day, card_id, rating)
            reviews += 1
            clock.advance(seconds=20)
    assert reviews > 60  # the starter cards learnt, then reviewed at growing intervals
    for card in await eng.deck.store.cards(1):
        assert aware(card.due) == mirror[card.id].due  # type: ignore[index]
    intervals = [(mirror[c].due - mirror[c].last_review).days for c in mirror]  # type: ignore[operator]
    assert max(intervals) >= 7  # well-known cards drift to weeks apart within the month

    # a restart: a new engine over the same database has the same deck and due dates
    again = recite_engine(sqlite_storage(tmp_path), clock)
    assert [(c.id, aware(c.due)) for c in await again.deck.store.cards(1)] == [
        (c.id, aware(c.due)) for c in await eng.deck.store.cards(1)
    ]
    stats = await one(again, msg("stats", "recite"))
    assert stats.extra["stats"]["reviewed"] == reviews
