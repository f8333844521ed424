"""Spaced review with the `fsrs` library (FSRS-6, the scheduler Anki uses): one card per passage.

A card's whole FSRS state is the library's own `Card.to_dict()`, stored as JSON; the due time is
kept beside it for the "what is due" query. Fuzzing is off so that every replica (and a test that
replays the same reviews through `fsrs.Scheduler` itself) computes the same due date. The
library's defaults otherwise: desired retention 0.9, learning steps 1 min and 10 min, relearning
10 min.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from fsrs import Card, Rating, Scheduler

RatingName = Literal["again", "hard", "good", "easy"]
RATINGS: dict[str, Rating] = {"again": Rating.Again, "hard": Rating.Hard, "good": Rating.Good, "easy": Rating.Easy}

SCHEDULER = Scheduler(enable_fuzzing=False)


@dataclass(frozen=True)
class Reviewed:
    """A card's state after one review: its JSON and when it is due next."""

    state: str
    due: datetime


def new_state(now: datetime) -> Reviewed:
    """A card never reviewed: due at once."""
    card = Card(card_id=1, due=now)
    return Reviewed(json.dumps(card.to_dict()), now)


def review(state: str, rating: RatingName, at: datetime) -> Reviewed:
    """The card in `state` (its JSON) reviewed at `at` with `rating`."""
    card = Card.from_dict(json.loads(state))
    after, _ = SCHEDULER.review_card(card, RATINGS[rating], review_datetime=at)
    return Reviewed(json.dumps(after.to_dict()), after.due)


def retrievability(state: str, at: datetime) -> float:
    """The chance FSRS gives of recalling the card at `at` (0 for a card never reviewed)."""
    return SCHEDULER.get_card_retrievability(Card.from_dict(json.loads(state)), current_datetime=at)
