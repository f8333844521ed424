"""kill -9 at the worst moments, then a restart: real processes, fake Bot API (polling), fake LLM.

- In the middle of a streamed reply: the next start edits the frozen half-sentence into "this answer
  was interrupted, Fuzi will answer again", marks the question and the reply "interrupted" (nothing
  deleted), and answers the question anew from the inbox; the next prompt never carries the
  orphaned question as a second user turn in a row.
- Right after acknowledging updates (the polling offset moved past them) and before any answer:
  every person is answered after the restart, once.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sqlite3
from pathlib import Path

import pytest

from core.storage import Storage, create_engine_and_tables
from core.texts import say
from tests.fakes.openai_server import Hang, Reply, fake_llm  # noqa: F401
from tests.fakes.telegram_api import FakeTelegram
from tests.helpers_process import child_env, spawn_fuzi

pytestmark = pytest.mark.processes

CHAT = 7
QUESTION = "学而时习之是什么意思？"
SLOW = "子曰：学而时习之，不亦说乎？学了又按时温习，不也是很愉快的吗？" * 6
ANSWER = "温故而知新，可以为师矣。"


async def start(tmp_path: Path, tg: FakeTelegram, llm, log: Path) -> asyncio.subprocess.Process:
    """`fuzi run telegram`, its stderr into `log` (a pipe nobody reads while the child runs would
    block it once full; a step that times out shows the restarted process's log)."""
    env = child_env(
        tmp_path / "home",
        FUZI_LLM_BASE_URL=llm.base_url,
        FUZI_LLM_API_KEY="sk-test",
        FUZI_REDIS_REPLY_LEASE_S="3",  # the inbox and the repair sweep look every second
        TELEGRAM_BOT_TOKEN="123456:TEST-token",
        TELEGRAM_API_BASE_URL=tg.base_url,
        TELEGRAM_POLL_TIMEOUT_S="1",
        TELEGRAM_EDIT_INTERVAL_PRIVATE_S="0.2",
    )
    with log.open("ab") as err:
        return await spawn_fuzi("run", "telegram", cwd=tmp_path, env=env, stdout=asyncio.subprocess.DEVNULL, stderr=err)


async def stop(process: asyncio.subprocess.Process, log: Path) -> None:
    process.send_signal(signal.SIGTERM)
    await asyncio.wait_for(process.wait(), timeout=60)
    assert process.returncode == 0, log.read_text(encoding="utf-8", errors="replace")[-2000:]


def shown_partial(tg: FakeTelegram):
    messages = tg.messages_in(CHAT)
    return messages and messages[0].text.startswith("子曰：学而") and len(messages[0].text) < len(SLOW)


def noted_shown(tmp_path: Path) -> bool:
    """The running reply's row knows its Telegram message (what the repair after the crash edits)."""
    with contextlib.closing(sqlite3.connect(tmp_path / "home" / "fuzi.sqlite3", timeout=5)) as db:
        row = db.execute("SELECT shown_in FROM message WHERE role = 'assistant' AND status = 'streaming'").fetchone()
    return bool(row and row[0] and not row[0].endswith(":"))


async def replied(tmp_path: Path, timeout: float = 30.0) -> None:
    """Wait until an answer is stored as delivered (its reply has ended and freed the person)."""
    query = "SELECT count(*) FROM message WHERE role = 'assistant' AND status = 'ok'"
    for _ in range(int(timeout / 0.2)):
        with contextlib.closing(sqlite3.connect(tmp_path / "home" / "fuzi.sqlite3", timeout=5)) as db:
            if db.execute(query).fetchone()[0]:
                return
        await asyncio.sleep(0.2)
    raise TimeoutError


def log_of(path: Path) -> AssertionError:
    return AssertionError(path.read_text(encoding="utf-8", errors="replace")[-4000:])


@pytest.mark.timeout(360)  # two process starts; each wait below fails first, with the process's log
async def test_kill_9_mid_reply_then_restart_closes_the_frozen_message_and_answers_anew(tmp_path, tg, fake_llm):
    fake_llm.push(Reply(text=SLOW, chunk=3, chunk_delay=0.3))  # ~20 s of streaming: killed long before
    first = await start(tmp_path, tg, fake_llm, tmp_path / "first.err")
    try:
        tg.private_text(CHAT, QUESTION)
        await tg.wait_for(lambda: shown_partial(tg), timeout=40)
        await tg.wait_for(lambda: noted_shown(tmp_path), timeout=20)  # noted right after the send
    finally:
        first.kill()  # SIGKILL: no cleanup of any kind
        await first.wait()
    frozen = tg.messages_in(CHAT)[0]
    assert frozen.text != say("INTERRUPTED", None)

    fake_llm.set_default(lambda body: ANSWER)
    log = tmp_path / "second.err"
    second = await start(tmp_path, tg, fake_llm, log)
    try:
        await tg.wait_for(lambda: tg.messages_in(CHAT)[0].text == say("INTERRUPTED", None), timeout=90)
        await tg.wait_for(lambda: any(ANSWER in m.text for m in tg.messages_in(CHAT)[1:]), timeout=40)
        await replied(tmp_path)  # the replayed reply is over: the next question is not "busy"
        answered = len(tg.messages_in(CHAT))
        tg.private_text(CHAT, "那温故而知新呢？")
        await tg.wait_for(lambda: len(tg.messages_in(CHAT)) > answered, timeout=30)
        await asyncio.sleep(1.0)
    except TimeoutError:  # within the test's own limit, so that the restarted process's log is shown
        raise log_of(log) from None
    finally:
        await stop(second, log)

    prompt = [m for m in fake_llm.requests[-1]["messages"] if m["role"] in ("user", "assistant")]
    roles = [m["role"] for m in prompt]
    assert all(not (a == b == "user") for a, b in zip(roles, roles[1:])), roles
    asked = [m for m in prompt if m["role"] == "user" and QUESTION in str(m.get("content"))]
    assert len(asked) == 1  # the replayed question with its answer; the orphaned one stays out

    storage = Storage(create_engine_and_tables(f"sqlite:///{tmp_path / 'home' / 'fuzi.sqlite3'}"))
    rows = await storage.messages.recent(f"telegram:{CHAT}", 10)
    assert [(r.role, r.status) for r in rows] == [
        ("user", "interrupted"),
        ("assistant", "interrupted"),
        ("user", "ok"),
        ("assistant", "ok"),
        ("user", "ok"),
        ("assistant", "ok"),
    ]
    assert rows[0].text == rows[2].text == QUESTION  # nothing said is lost
    storage.engine.dispose()


@pytest.mark.timeout(360)
async def test_kill_9_after_acknowledging_updates_answers_everyone_after_a_restart(tmp_path, tg, fake_llm):
    people = [101, 102, 103, 104, 105]
    fake_llm.set_default(lambda body: Hang(None))  # the model never answers the first process
    first = await start(tmp_path, tg, fake_llm, tmp_path / "first.err")
    try:
        updates = [tg.private_text(chat, f"第{chat}问：何为仁？") for chat in people]
        last = max(u["update_id"] for u in updates)
        await tg.wait_for(lambda: tg.offset > last, timeout=60)  # Telegram counts them all as received
    finally:
        first.kill()
        await first.wait()
    assert not any(ANSWER in m.text for chat in people for m in tg.messages_in(chat))

    fake_llm.set_default(lambda body: ANSWER)
    log = tmp_path / "second.err"
    second = await start(tmp_path, tg, fake_llm, log)
    try:
        await tg.wait_for(
            lambda: all(any(ANSWER in m.text for m in tg.messages_in(chat)) for chat in people), timeout=60
        )
        await asyncio.sleep(2.0)  # a second replay would have shown by now
    except TimeoutError:
        raise log_of(log) from None
    finally:
        await stop(second, log)
    for chat in people:
        assert sum(ANSWER in m.text for m in tg.messages_in(chat)) == 1, tg.messages_in(chat)
