"""Every message an answer is shown in maps back to it: the first in `message.shown_in`, the later
parts of a split answer in `reply_part` (revision 0026_i33_parts), on SQLite and PostgreSQL; the
adapters' lifecycle notes a first message shown before the reply's row existed once the row does;
the scheduler notes each message of a post."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect
from sqlmodel import SQLModel

import core.guards.models  # noqa: F401
import core.memory.models  # noqa: F401
import core.schedule.models  # noqa: F401
from adapters.common.lifecycle import ReplyLifecycle
from adapters.common.stream import BudgetRegistry, StreamingReply
from core.events import FinalReply, Notice, ReplyEvent, TextDelta
from core.schedule.passage import DailyPassage
from core.schedule.ports import ChatSchedule, Posted, Posters
from core.schedule.scheduler import Scheduler
from core.schedule.store import ClaimRepo, RotationRepo
from core.shown_in import ShownIn
from core.skills import SkillRegistry
from core.storage import Storage, create_database_engine, open_database
from core.storage.migrate import alembic_config, head_revision, upgrade
from tests.fakes.engine import ScriptedEngine
from tests.helpers_db import database_url, postgres_url  # noqa: F401
from tests.helpers_engine import asked
from tests.helpers_schedule import DictSettings, FakeClock, RecordingPoster, tiny_passages, utc


def tg(message_id: int, chat: str = "7") -> ShownIn:
    return ShownIn("telegram", chat, message_id)


async def test_each_part_of_an_answer_finds_it_once_the_reply_ended(database_url):
    engine = open_database(database_url)
    try:
        storage = Storage(engine)
        await asked(storage, "telegram:7", "t1")
        assert await storage.replies.shown_in("t1", tg(10))
        assert await storage.replies.shown_in("t1", tg(11), 1) and await storage.replies.shown_in("t1", tg(12), 2)
        assert [await storage.feedback.reply_at(tg(n)) for n in (10, 11, 12)] == [None] * 3  # still streaming
        await storage.replies.finish("telegram:7", "t1", "一、二、三", 1, "streaming")
        await storage.replies.confirm("t1", "ok")
        assert [await storage.feedback.reply_at(tg(n)) for n in (10, 11, 12)] == ["t1"] * 3
        assert await storage.feedback.rate("telegram", "telegram:5", "👍", where=tg(12)) == "up"
        assert await storage.feedback.reply_at(tg(12, chat="8")) is None  # the same id in another chat

        await asked(storage, "telegram:7", "t2")  # a message id noted again (an edit sent anew) moves
        await storage.replies.shown_in("t2", tg(12), 1)
        await storage.replies.finish("telegram:7", "t2", "四", 1, "ok")
        assert await storage.feedback.reply_at(tg(12)) == "t2"

        await asked(storage, "telegram:7", "t3")  # a reply whose messages are noted for reactions only
        await storage.replies.shown_in("t3", tg(30), 0)
        await storage.replies.finish("telegram:7", "t3", "五", 1, "ok")
        assert await storage.feedback.reply_at(tg(30)) == "t3"

        assert not await storage.replies.shown_in("never", tg(20))  # no reply row (yet): nothing noted
        await storage.messages.delete_chat("telegram:7")  # the replies are gone: their parts map to nothing
        assert await storage.feedback.reply_at(tg(11)) is None
    finally:
        engine.dispose()


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
def test_0026_adds_reply_part_and_downgrade_removes_it(dialect, request, tmp_path):
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}" if dialect == "sqlite" else request.getfixturevalue("postgres_url")
    engine = create_database_engine(url)
    try:
        upgrade(engine, "0025_i33_inbox")
        assert not inspect(engine).has_table("reply_part")
        assert upgrade(engine).after == head_revision()
        with engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), SQLModel.metadata) == []
        assert "ix_reply_part_trace_id" in {i["name"] for i in inspect(engine).get_indexes("reply_part")}
        with engine.connect() as conn:
            command.downgrade(alembic_config(conn), "0025_i33_inbox")
            conn.commit()
        assert not inspect(engine).has_table("reply_part")
    finally:
        engine.dispose()


class RowLater(ScriptedEngine):
    """An engine whose reply row is written only once `started` is set (a photo still being read)."""

    def __init__(self) -> None:
        super().__init__()
        self.started = asyncio.Event()
        self.tries: list[tuple[ShownIn, int | None]] = []

    async def record_shown(self, trace_id: str, where: ShownIn, part: int | None = None) -> bool:
        self.tries.append((where, part))
        if not self.started.is_set():
            return False
        return await super().record_shown(trace_id, where, part)


class Sink:
    """A platform with numbered messages; an edit of message `gone` sends a new one (Telegram's
    "message to edit not found")."""

    def __init__(self, limit: int = 10, gone: int | None = None) -> None:
        self.limit, self.gone, self.sent = limit, gone, 0

    async def typing(self) -> None:
        return None

    async def send(self, text: str, *, final: bool = False, extra=None) -> int:
        self.sent += 1
        return 100 + self.sent

    async def edit(self, handle: int, text: str, *, final: bool = False, extra=None) -> int:
        return await self.send(text, final=final) if handle == self.gone else handle

    def fit_preview(self, text: str) -> str:
        return text[: self.limit]

    def split_final(self, text: str) -> list[str]:
        return [text[i : i + self.limit] for i in range(0, len(text), self.limit)]


async def _reply(
    engine: RowLater, sink: Sink, *events: ReplyEvent | Callable[[], None], before=None, repairable: bool = True
) -> None:
    life = ReplyLifecycle(engine, "telegram", "t1", lambda handle: tg(handle), repairable=repairable)
    reply = StreamingReply(
        sink,
        BudgetRegistry().get("7", 0.0),
        placeholder="…",
        placeholder_first=True,
        first_typing_after=0.0,
        on_shown=life.shown,
        on_part=life.part,
    )

    async def stream():
        if before is not None:
            await before()
        for event in events:
            if callable(event):
                event()
            else:
                yield event

    await life.stream(reply, stream())


async def test_a_first_message_shown_before_the_reply_row_is_noted_with_the_next_event():
    engine = RowLater()

    async def reading() -> None:  # the placeholder shows while the photo is read; then the row is written
        await asyncio.sleep(0.3)
        engine.started.set()

    def noted_before_the_final() -> None:  # a crash from here on finds the message to correct
        assert engine.shown == [("t1", tg(101))]

    final = FinalReply("一二三四五六七八九十甲乙丙丁戊")
    await _reply(engine, Sink(), TextDelta("一二"), noted_before_the_final, final, before=reading)
    assert engine.tries == [(tg(101), None), (tg(101), None), (tg(102), 1)]  # missed, noted again, part 2
    assert engine.shown == [("t1", tg(101))] and engine.parts == [("t1", tg(102), 1)]


async def test_a_first_part_sent_anew_is_noted_and_a_notice_is_not_mapped():
    engine = RowLater()
    engine.started.set()
    await _reply(engine, Sink(gone=101), FinalReply("答"), before=lambda: asyncio.sleep(0.3))
    assert engine.shown == [("t1", tg(101)), ("t1", tg(102))]  # the placeholder, then the answer's own message
    notices = RowLater()
    await _reply(notices, Sink(), Notice("一二三四五六七八九十甲乙", reason="busy"))
    assert notices.tries == [(tg(101), None)]  # only the first message, as for a crash repair; no parts


async def test_a_reply_no_restart_could_correct_has_each_message_noted_for_reactions_only():
    engine = RowLater()
    engine.started.set()
    await _reply(
        engine, Sink(), FinalReply("一二三四五六七八九十甲乙"), before=lambda: asyncio.sleep(0.3), repairable=False
    )
    assert engine.shown == [] and engine.parts == [("t1", tg(101), 0), ("t1", tg(102), 1)]


async def test_every_message_of_a_scheduled_post_finds_it(tmp_path):
    engine = open_database(f"sqlite:///{tmp_path / 'fuzi.sqlite3'}")
    try:
        storage = Storage(engine)
        posters = Posters()
        parts = (tg(1, "-100"), tg(2, "-100"))
        posters.register("telegram", RecordingPoster(answers={"-100": Posted("sent", "", parts)}))
        scheduler = Scheduler(
            DictSettings(ChatSchedule("telegram:-100", daily_at=utc(2026, 1, 1, 8).time(), zone="UTC")),
            ClaimRepo(engine),
            DailyPassage(tiny_passages(), RotationRepo(engine), SkillRegistry(), None),
            posters,
            messages=storage.messages,
            replies=storage.replies,
            now=FakeClock(utc(2026, 12, 2, 8, 0)).now,
        )
        await asyncio.gather(*await scheduler.scan())
        (post,) = await storage.messages.recent("telegram:-100", 5)
        assert [await storage.feedback.reply_at(where) for where in parts] == [post.trace_id] * 2
    finally:
        engine.dispose()
