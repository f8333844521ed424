"""The quiz core on SQLite and PostgreSQL: questions of every kind from any book's passages, one open
quiz per chat under concurrent /quiz, each answer scored once, streaks, the leaderboard within 1 s
over many answers, /settings quiz, and /forget all deleting the person's scores."""

from __future__ import annotations

import asyncio
import random
import time
from datetime import date, timedelta
from datetime import time as time_

import pytest

from core.quiz.generate import EXPLANATION_MAX, KINDS, NoQuiz, QuizMaker, place, speaker
from core.quiz.models import QuizAnswer
from core.quiz.ports import PostedQuiz, QuizPost
from core.quiz.service import streak
from core.schedule.ports import Posters
from core.storage import Storage, open_database
from core.types import Incoming, Passage
from tests.helpers_db import database_url, postgres_url  # noqa: F401
from tests.helpers_engine import collect, make_service, notices
from tests.helpers_quiz import passages, quiz_router, quiz_service, utcnow


class RecordingQuizPoster:
    """A `QuizPoster` that keeps what it was asked to post (the adapters' own tests use the fakes)."""

    def __init__(self, delay_s: float = 0.0) -> None:
        self.posted: list[tuple[str, QuizPost]] = []
        self.delay_s = delay_s

    async def post(self, chat_id, text):  # the scheduled-post side, unused here
        raise AssertionError("not a text post")

    async def post_quiz(self, chat_id: str, quiz: QuizPost) -> PostedQuiz:
        await asyncio.sleep(self.delay_s)
        self.posted.append((chat_id, quiz))
        return PostedQuiz("sent", poll_id=f"p{quiz.quiz_id}", message_id=str(quiz.quiz_id))

    async def close_quiz(self, chat_id, message_id, quiz, summary) -> None:
        pass


@pytest.fixture
def storage(database_url):  # noqa: F811
    engine = open_database(database_url)
    yield Storage(engine)
    engine.dispose()


def test_every_kind_from_the_passages_and_from_a_new_book():
    maker = QuizMaker(passages())
    rng = random.Random(7)
    for kind in KINDS:
        for _ in range(20):
            q = maker.make(rng, kind)
            assert 3 <= len(q.options) <= 4 and len(set(q.options)) == len(q.options)
            assert 0 <= q.correct < len(q.options) and len(q.explanation) <= EXPLANATION_MAX
            assert q.explanation.startswith("出自《") and len(q.question) <= 300
    mencius = [
        Passage(f"mengzi:1.{i}", f"《孟子·梁惠王上》第{i}章", "mengzi", "梁惠王上", f"孟子曰：{t}")
        for i, t in enumerate(["仁者无敌，王请勿疑。", "五十步笑百步，则何如？", "老吾老，以及人之老。"], 1)
    ] + [
        Passage("mengzi:14.14", "《孟子·尽心下》第14章", "mengzi", "尽心下", "孟子曰：民为贵，社稷次之，君为轻。"),
        Passage("mengzi:7.1", "《孟子·离娄上》第1章", "mengzi", "离娄上", "孟子曰：徒善不足以为政，徒法不能以自行。"),
        Passage("mengzi:3.3", "《孟子·公孙丑上》第3章", "mengzi", "公孙丑上", "孟子曰：以力假仁者霸，以德行仁者王。"),
    ]
    q = QuizMaker(passages() + mencius).make_from(mencius[3], "place", random.Random(1))
    assert q is not None and q.options[q.correct] == "《孟子·尽心下》"
    assert place(mencius[0]) == "《孟子·梁惠王上》" and speaker(mencius[0]) == "孟子"
    assert place(passages()[-1]) == "《诗经·国风·邶风》"
    with pytest.raises(NoQuiz):
        QuizMaker(passages()[:1]).make(random.Random(1), "speaker")


def test_streaks_count_days_in_a_row_ending_today_or_yesterday():
    today = date(2026, 12, 6)
    days = {today - timedelta(days=n) for n in (0, 1, 2, 4)}
    assert streak(days, today) == 3
    assert streak({today - timedelta(days=1), today - timedelta(days=2)}, today) == 2
    assert streak({today - timedelta(days=2)}, today) == 0


async def test_two_quizzes_at_once_open_one_and_answers_count_once(storage):
    posters = Posters()
    poster = RecordingQuizPoster(delay_s=0.05)
    posters.register("telegram", poster)  # type: ignore[arg-type]
    quizzes = quiz_service(storage, posters)
    started = await asyncio.gather(*(quizzes.start("telegram:-1") for _ in range(4)))
    assert sorted(s.status for s in started) == ["open", "open", "open", "posted"]
    assert len(poster.posted) == 1
    poll = f"p{poster.posted[0][1].quiz_id}"
    row = await quizzes.repo.by_poll(poll)
    outcomes = await asyncio.gather(
        *(quizzes.answer_poll(poll, "telegram:1", "Zilu", [row.correct]) for _ in range(5)),
        quizzes.answer_poll(poll, "telegram:1", "Zilu", []),
        quizzes.answer_poll(poll, "telegram:2", "Zigong", [9]),
        quizzes.answer_poll(poll, None, "", [0]),
        quizzes.answer_poll("nope", "telegram:3", "", [0]),
    )
    assert sorted(outcomes) == sorted(["scored", *["duplicate"] * 4, "retracted", "bad_option", "no_person", "unknown"])
    assert [(a.account, a.correct) for a in await quizzes.repo.tally(row.id)] == [("telegram:1", True)]


async def test_a_failed_post_frees_the_chat_and_an_expired_quiz_gives_way(storage):
    class Failing(RecordingQuizPoster):
        async def post_quiz(self, chat_id, quiz):
            return PostedQuiz("failed", "502")

    posters = Posters()
    posters.register("telegram", Failing())  # type: ignore[arg-type]
    clock = [utcnow()]
    quizzes = quiz_service(storage, posters, now=lambda: clock[0])
    assert (await quizzes.start("telegram:-2")).status == "failed"
    posters.register("telegram", RecordingQuizPoster())  # type: ignore[arg-type]
    assert (await quizzes.start("telegram:-2")).status == "posted"
    assert (await quizzes.start("telegram:-2")).status == "open"
    clock[0] += timedelta(seconds=quizzes.open_s + 1)  # ran out, not closed yet: a new one may open
    assert (await quizzes.start("telegram:-2")).status == "posted"
    assert (await quizzes.start("console:x")).status == "no_platform"


async def test_the_leaderboard_answers_within_a_second_over_many_answers(storage):
    posters = Posters()
    posters.register("telegram", RecordingQuizPoster())  # type: ignore[arg-type]
    quizzes = quiz_service(storage, posters)
    chat, now = "telegram:-3", utcnow()
    rows = [
        QuizAnswer(
            quiz_id=q,
            chat_key=chat,
            account=f"telegram:{u}",
            name=f"p{u}",
            option=0,
            correct=(q + u) % 3 != 0,
            day=(now - timedelta(days=q % 30)).date(),
            answered_at=now - timedelta(days=q % 30, minutes=u),
        )
        for q in range(400)
        for u in range(50)
    ]
    from sqlmodel import Session

    with Session(storage.engine) as s:
        s.add_all(rows)
        s.commit()
    engine = make_service(storage, router=quiz_router(quizzes))
    for args in ("", "all"):
        started = time.perf_counter()
        message = Incoming("telegram", "1", "-3", args, user_name="p1", command="leaderboard", is_group=True)
        events = await collect(engine, message)
        elapsed = time.perf_counter() - started
        (notice,) = notices(events)
        assert len(notice.extra["scores"]) == 10
        assert elapsed <= 1.0, f"/leaderboard {args} took {elapsed:.2f} s over {len(rows)} answers"


async def test_the_daily_quiz_is_claimed_once_by_two_schedulers(storage):
    """Two schedulers (two processes' loops) on one database see the quiz due at once: one posts it;
    the next day it is due again; a quiz still open at that time means no quiz that day."""
    from core.schedule.passage import DailyPassage
    from core.schedule.scheduler import Scheduler
    from core.schedule.settings_view import SettingsView
    from core.schedule.store import ClaimRepo, RotationRepo
    from core.skills import SkillRegistry
    from core.storage.chat_settings import Daily
    from tests.helpers_schedule import FakeClock, tiny_passages, utc

    chat = "telegram:-7"
    await storage.settings.change(
        chat, "quiz", Daily(time_(8, 0), "Asia/Shanghai"), account="telegram:1", platform="telegram", is_group=True
    )
    from sqlalchemy import text

    with storage.engine.begin() as conn:
        conn.execute(text("UPDATE chat_setting_change SET created_at = :t"), {"t": utc(2026, 11, 30)})
    clock = FakeClock(utc(2026, 12, 2, 0, 0, 30))  # 08:00:30 in Shanghai
    poster = RecordingQuizPoster()
    schedulers = []
    for _ in range(2):
        posters = Posters()
        posters.register("telegram", poster)  # type: ignore[arg-type]
        quizzes = quiz_service(storage, posters, now=clock.now)
        view = SettingsView(storage.settings, storage.engine)
        daily = DailyPassage(tiny_passages(), RotationRepo(storage.engine), SkillRegistry(), None)
        schedulers.append(
            (
                Scheduler(
                    view,
                    ClaimRepo(storage.engine),
                    daily,
                    posters,
                    quiz=quizzes,
                    now=clock.now,
                    monotonic=clock.monotonic,
                ),
                quizzes,
            )
        )
    tasks = [t for s, _ in schedulers for t in await s.scan()]
    await asyncio.gather(*tasks)
    assert [c for c, _ in poster.posted] == ["-7"]
    claims = await ClaimRepo(storage.engine).all(chat)
    assert [(c.kind, c.status) for c in claims] == [("quiz", "sent")]

    clock.advance(timedelta(days=1))  # the quiz of yesterday is still "open" in the table: it ran out
    await asyncio.gather(*[t for s, _ in schedulers for t in await s.scan()])
    assert len(poster.posted) == 2

    clock.advance(timedelta(days=1, seconds=-60))  # 07:59:30 the day after: open quiz of a minute ago
    await schedulers[0][1].start(chat)
    clock.advance(timedelta(seconds=60))
    await asyncio.gather(*[t for s, _ in schedulers for t in await s.scan()])
    statuses = [(c.local_date.isoformat(), c.status, c.detail) for c in await ClaimRepo(storage.engine).all(chat)]
    assert statuses[-1] == ("2026-12-04", "skipped", "open")
