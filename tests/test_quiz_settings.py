"""`/settings quiz` (admins, groups only) as the scheduler sees it, and `/forget all` deleting the
person's quiz scores on every linked account."""

from __future__ import annotations

from datetime import time

from core.chatsettings.command import USAGE
from core.engine.commands import CommandRouter
from core.memory import MemoryConfig, build_memory, register_memory
from core.quiz.commands import QuizCommands
from core.quiz.models import QuizAnswer
from core.schedule.ports import Posters
from core.schedule.settings_view import SettingsView
from core.types import Incoming
from tests.helpers_engine import collect, make_service, notices, sqlite_storage
from tests.helpers_quiz import quiz_service, utcnow
from tests.test_memory_fixtures import HashEmbedder


def group(args: str, command: str = "settings", user: str = "u1") -> Incoming:
    return Incoming("console", user, "study-group", args, user_name=user, command=command, is_group=True)


def dm(args: str, command: str = "settings", user: str = "u1") -> Incoming:
    return Incoming("console", user, f"dm-{user}", args, user_name=user, command=command)


async def text_of(service, message: Incoming) -> str:
    (notice,) = notices(await collect(service, message))
    return notice.text


async def test_settings_quiz_sets_and_clears_the_daily_quiz(tmp_path):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage)
    assert "quiz" in USAGE
    changed = await text_of(service, group("quiz 20:30 Asia/Taipei"))
    assert "每日一题 quiz" in changed and "20:30 Asia/Taipei" in changed
    shown = await text_of(service, group(""))
    assert "每日一题 quiz: 20:30 Asia/Taipei" in shown
    view = SettingsView(storage.settings, storage.engine)
    (chat,) = await view.scheduled()
    assert (chat.quiz_at, chat.quiz_zone, chat.daily_at) == (time(20, 30), "Asia/Taipei", None)
    assert chat.quiz_since is not None
    await text_of(service, group("quiz 7:00"))  # the zone stays the chat's quiz zone
    assert (await view.scheduled())[0].quiz_at == time(7, 0)
    assert (await view.scheduled())[0].quiz_zone == "Asia/Taipei"
    assert "off" in await text_of(service, group("quiz off"))
    assert await view.scheduled() == []
    refused = await text_of(service, dm("quiz 08:00"))
    assert "groups only" in refused
    assert "每日一题" not in await text_of(service, dm(""))  # a DM's settings do not list it
    bad = await text_of(service, group("quiz 25:00"))
    assert "25:00" in bad


async def test_forget_all_deletes_the_persons_quiz_scores(tmp_path):
    storage = sqlite_storage(tmp_path)
    memory = build_memory(storage.engine, None, HashEmbedder(), MemoryConfig())
    router = CommandRouter()
    register_memory(memory, router=router)
    quizzes = quiz_service(storage, Posters())
    QuizCommands(quizzes).register(router)
    memory.commands.also_forget(quizzes.repo.forget_accounts)
    service = make_service(storage, router=router)
    from sqlmodel import Session

    now = utcnow()
    with Session(storage.engine) as s:
        for quiz_id, account in [(1, "console:u1"), (2, "console:u1"), (1, "console:u2")]:
            s.add(
                QuizAnswer(
                    quiz_id=quiz_id,
                    chat_key="console:study-group",
                    account=account,
                    name=account,
                    option=0,
                    correct=True,
                    day=now.date(),
                    answered_at=now,
                )
            )
        s.commit()
    board = await text_of(service, group("", command="leaderboard"))
    assert "console:u1" in board and "console:u2" in board
    await text_of(service, dm("all", command="forget"))
    board = await text_of(service, group("", command="leaderboard", user="u2"))
    assert "console:u1" not in board and "1. console:u2 · 答对 1/1" in board
