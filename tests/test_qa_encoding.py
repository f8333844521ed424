"""QA: undecodable input bytes, NUL and lone surrogates are kept (as U+FFFD) and answered, never lost."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
from pathlib import Path

import pytest

from core.events import FinalReply
from core.types import Incoming
from tests.helpers_engine import CorpusRetriever, collect, final_of, make_service, sqlite_storage
from tests.helpers_process import child_env, spawn_fuzi


async def test_nul_and_lone_surrogates_are_stored_as_replacement_characters(tmp_path):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage, retriever=CorpusRetriever())
    message = Incoming(
        platform="console", user_id="alice", chat_id="c1", text="巧言令色\udcff\x00", user_name="al\ud800ice"
    )
    events = await collect(service, message)
    assert isinstance(events[-1], FinalReply), events  # answered, not "something went wrong"
    assert "巧言令色，鲜矣仁" in final_of(events).text
    [user, _reply] = await storage.messages.recent("console:c1", 5)
    assert user.text == "巧言令色\ufffd\ufffd" and user.status == "ok"
    assert user.speaker == "al\ufffdice"


@pytest.mark.processes
async def test_piped_chat_survives_invalid_utf8_on_a_strict_stdin(tmp_path):
    home = tmp_path / "home"
    env = child_env(home, PYTHONIOENCODING="utf-8:strict")
    proc = await spawn_fuzi("chat", "--user", "u1", cwd=tmp_path, env=env, stdin=asyncio.subprocess.PIPE)
    data = "巧言令色".encode() + b"\xff\xfe\n" + "关关雎鸠\n".encode()
    out, err = await asyncio.wait_for(proc.communicate(data), timeout=100)
    assert proc.returncode == 0, err.decode()[-2000:]
    text = out.decode()
    assert "巧言令色，鲜矣仁" in text and "《诗经·国风·周南·关雎》" in text  # both lines answered
    assert "trace" not in text  # no error notice
    rows = (
        sqlite3.connect(home / "fuzi.sqlite3").execute("select text, status from message where role='user'").fetchall()
    )
    assert rows == [("巧言令色\ufffd\ufffd", "ok"), ("关关雎鸠", "ok")]
