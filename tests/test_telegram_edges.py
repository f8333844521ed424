"""Telegram edges: captions addressed to Fuzi are read; webhook bodies that are no update get a 400."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import socket

import aiohttp
import pytest
import pytest_asyncio
from telegram import Message

from adapters.telegram.routing import route
from core.events import FinalReply
from tests.fakes.engine import ScriptedEngine
from tests.fakes.telegram_api import BOT_ID, BOT_USERNAME, FakeTelegram
from tests.helpers_process import free_port
from tests.helpers_telegram import running_bot

GROUP = -1001
PHOTO = [{"file_id": "p1", "file_unique_id": "u1", "width": 90, "height": 90}]


def _photo(chat: dict, caption: str, entities: list | None = None) -> Message:
    raw = {
        "message_id": 3,
        "date": 0,
        "chat": chat,
        "from": {"id": 5, "is_bot": False, "first_name": "Zilu"},
        "photo": PHOTO,
        "caption": caption,
        "caption_entities": entities or [],
    }
    return Message.de_json(raw, None)


def test_a_caption_addressed_to_fuzi_is_the_question():
    group = {"id": GROUP, "type": "supergroup", "title": "论语读书会"}
    mention = [{"type": "mention", "offset": 0, "length": len(BOT_USERNAME) + 1}]
    r = route(_photo(group, f"@{BOT_USERNAME} 此画何意？", mention), BOT_ID, BOT_USERNAME)
    assert r is not None and (r.kind, r.text) == ("text", "此画何意？")
    r = route(_photo({"id": 5, "type": "private"}, "这是哪一章？"), BOT_ID, BOT_USERNAME)
    assert r is not None and (r.kind, r.text) == ("text", "这是哪一章？")
    r = route(_photo(group, "大家看这张"), BOT_ID, BOT_USERNAME)  # not addressed: context, as text is
    assert r is not None and (r.kind, r.text) == ("context", "大家看这张")


async def test_webhook_bodies_that_are_no_update_get_400_and_one_short_line(tg, caplog):
    port = free_port()
    engine = ScriptedEngine(default=[FinalReply("答")])
    settings = dict(mode="webhook", webhook_url="https://fuzi.example/telegram", webhook_listen="127.0.0.1")
    good = {
        "update_id": 2,
        "message": {
            "message_id": 9,
            "date": 0,
            "chat": {"id": 50, "type": "private"},
            "from": {"id": 50, "is_bot": False, "first_name": "Zeng"},
            "text": "吾日三省吾身",
        },
    }
    secret_body = '{"hello": "TOPSECRET-body"}'
    # An OpenAI SDK client an earlier test left open schedules its own aclose() on the running loop
    # when it is garbage collected (openai's AsyncHttpxClientWrapper.__del__); that task fails at once
    # (its connections belong to a closed loop) and asyncio logs "Task exception was never retrieved"
    # when the task is freed — at a random moment, maybe inside this test. Collect, let those tasks
    # fail, free them, and only then start reading records: the ones checked below are this bot's.
    gc.collect()
    await asyncio.sleep(0.1)
    gc.collect()
    caplog.clear()
    caplog.set_level(logging.DEBUG)
    async with running_bot(tg, engine, **settings, webhook_port=port), aiohttp.ClientSession() as http:
        url, headers = f"http://127.0.0.1:{port}/telegram", {"Content-Type": "application/json"}
        statuses = []
        for body in ("this is not json {", secret_body, "[1, 2]", json.dumps(good)):
            async with http.post(url, data=body, headers=headers) as response:
                statuses.append(response.status)
        await tg.wait_for(lambda: tg.messages_in(50))
    assert statuses == [400, 400, 400, 200]
    assert [i.text for i in engine.received] == ["吾日三省吾身"]
    assert "TOPSECRET" not in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_the_test_bot_refuses_a_settings_override_that_is_no_setting():
    """TelegramSettings ignores unknown keys; the helper must not, or a test passing a retired knob
    (typing_refresh_s, max_requests_per_s: constants since issue 21) would silently test the default."""
    with pytest.raises(TypeError, match="typing_refresh_s"):
        async with running_bot(None, None, typing_refresh_s=1.0):
            pass
