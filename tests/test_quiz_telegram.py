"""/quiz in a Telegram group through the real PTB against the fake Bot API: a native quiz poll,
`poll_answer` updates scored exactly once (duplicates, retractions, unknown polls, votes as a chat),
one open quiz per chat, the DM refusal, the leaderboard, a restart between the quiz and its answers."""

from __future__ import annotations

from adapters.telegram.app import ALLOWED_UPDATES, scheduled_poster
from adapters.telegram.settings import TelegramSettings
from core.schedule.ports import Posters
from core.texts import say
from tests.fakes.telegram_api import TOKEN
from tests.fakes.telegram_polls import FakeTelegramPolls
from tests.helpers_engine import make_service, sqlite_storage
from tests.helpers_quiz import quiz_router, quiz_service
from tests.helpers_schedule import log_events  # noqa: F401
from tests.helpers_telegram import running_bot
from tests.helpers_wait import eventually

GROUP = -1001


def _settings(tg) -> TelegramSettings:
    return TelegramSettings(bot_token=TOKEN, api_base_url=tg.base_url, edit_interval_group_s=0.1)


async def _replies(tg, chat: int, n: int) -> list[str]:
    await tg.wait_for(lambda: len([m for m in tg.messages_in(chat) if not m.text.startswith("[poll]")]) >= n)
    return [m.text for m in tg.messages_in(chat) if not m.text.startswith("[poll]")]


async def test_quiz_poll_and_each_answer_scored_once(tmp_path, log_events):
    logs = log_events
    storage = sqlite_storage(tmp_path)
    posters = Posters()
    quizzes = quiz_service(storage, posters)
    engine = make_service(storage, router=quiz_router(quizzes))
    async with FakeTelegramPolls() as tg, running_bot(tg, engine, quizzes=quizzes) as app:
        posters.register("telegram", scheduled_poster(app, _settings(tg)))
        tg.group_text(GROUP, "/quiz")
        await tg.wait_for(lambda: tg.polls)
        (poll,) = tg.polls.values()
        assert poll.chat_id == GROUP and poll.type == "quiz" and poll.is_anonymous is False
        assert 3 <= len(poll.options) <= 4 and len(poll.correct_option_ids) == 1
        assert poll.explanation and len(poll.explanation) <= 200 and "《" in poll.explanation
        assert poll.open_period == quizzes.open_s
        assert (await _replies(tg, GROUP, 1))[0] == say("QUIZ_POSTED", None, minutes=10)
        assert "poll_answer" in tg.calls_to("getUpdates")[0].params["allowed_updates"]

        right = poll.correct_option_ids[0]
        wrong = (right + 1) % len(poll.options)
        repo = quizzes.repo
        quiz_id = (await repo.by_poll(poll.poll_id)).id
        first = tg.poll_answer(poll.poll_id, user_id=1, name="Zilu", option_ids=[right])
        tg.redeliver(first)  # the same update again: the inbox drops it
        tg.poll_answer(poll.poll_id, user_id=1, name="Zilu", option_ids=[right])  # a copy with a new update id
        await eventually(lambda: _answers(repo, quiz_id, 1))
        # updates run concurrently: what follows comes after the first answer was scored
        tg.poll_answer(poll.poll_id, user_id=1, name="Zilu", option_ids=[])  # retracted
        tg.poll_answer(poll.poll_id, user_id=1, name="Zilu", option_ids=[wrong])  # voted again: the first stays
        tg.poll_answer(poll.poll_id, user_id=2, name="Zigong", option_ids=[wrong])
        tg.poll_answer("999", user_id=3, option_ids=[0])  # not our poll
        tg.poll_answer(poll.poll_id, user_id=None, voter_chat=GROUP, option_ids=[right])  # an anonymous admin
        handled = lambda: [e["outcome"] for e in logs if e.get("event") == "telegram_poll_answer"]  # noqa: E731
        await eventually(lambda: len(handled()) == 7)  # every update but the repeat the inbox dropped
        assert sorted(handled()) == sorted(
            ["scored", "duplicate", "retracted", "duplicate", "scored", "unknown", "no_person"]
        )
        answers = await repo.tally(quiz_id)
        assert sorted((a.account, a.option, a.correct) for a in answers) == [
            ("telegram:1", right, True),
            ("telegram:2", wrong, False),
        ]

        tg.group_text(GROUP, "/quiz")  # one open quiz per chat
        replies = await _replies(tg, GROUP, 2)
        assert replies[-1].startswith(say("QUIZ_OPEN", "zh", when="")[:6]) and len(tg.polls) == 1

        tg.group_text(GROUP, "/leaderboard")
        board = (await _replies(tg, GROUP, 3))[-1]
        assert board.splitlines()[1].startswith("1. Zilu · 答对 1/1 · 连续 1 天")
        assert board.splitlines()[2].startswith("2. Zigong · 答对 0/1 · 连续 0 天")

        tg.private_text(5, "/quiz")
        assert (await _replies(tg, 5, 1))[0] == say("QUIZ_GROUPS_ONLY", None)
        assert len(tg.polls) == 1


async def _answers(repo, quiz_id: int, n: int) -> bool:
    return len(await repo.tally(quiz_id)) >= n


async def test_answers_after_a_restart_are_scored(tmp_path):
    """The poll id → quiz map lives in the database: a process started after the quiz scores it."""
    storage = sqlite_storage(tmp_path)
    posters = Posters()
    quizzes = quiz_service(storage, posters)
    engine = make_service(storage, router=quiz_router(quizzes))
    async with FakeTelegramPolls() as tg:
        async with running_bot(tg, engine, quizzes=quizzes) as app:
            posters.register("telegram", scheduled_poster(app, _settings(tg)))
            tg.group_text(GROUP, "/quiz")
            await tg.wait_for(lambda: tg.polls)
            await _replies(tg, GROUP, 1)
        (poll,) = tg.polls.values()
        tg.poll_answer(poll.poll_id, user_id=7, option_ids=[poll.correct_option_ids[0]])
        fresh_storage = sqlite_storage(tmp_path)
        again = quiz_service(fresh_storage, Posters())
        async with running_bot(tg, make_service(fresh_storage, router=quiz_router(again)), quizzes=again):
            quiz = await again.repo.by_poll(poll.poll_id)
            await eventually(lambda: _answers(again.repo, quiz.id, 1))
        (answer,) = await again.repo.tally(quiz.id)
        assert (answer.account, answer.correct) == ("telegram:7", True)


def test_poll_answers_are_asked_for():
    assert "poll_answer" in ALLOWED_UPDATES
