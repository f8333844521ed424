"""When the Telegram adapter answers, commands, the /skill keyboard, non-text messages."""

from __future__ import annotations

import asyncio

import pytest_asyncio

from core.events import FinalReply, Notice, TextDelta
from tests.fakes.engine import ScriptedEngine
from tests.fakes.telegram_api import BOT_ID, BOT_USERNAME, FakeTelegram
from tests.helpers_process import free_port
from tests.helpers_telegram import running_bot

GROUP = -1001


async def test_commands_registered_in_chinese_and_english(tg):
    async with running_bot(tg, ScriptedEngine()):
        await tg.wait_for(lambda: len(tg.calls_to("setMyCommands")) == 3)
    by_lang = {c.params.get("language_code"): c.params["commands"] for c in tg.calls_to("setMyCommands")}
    assert set(by_lang) == {None, "zh", "en"}
    assert {"command": "skill", "description": "选择技能"} in by_lang["zh"]
    assert {"command": "skill", "description": "Choose a skill"} in by_lang["en"]
    assert by_lang[None] == by_lang["zh"]


async def test_group_answers_only_when_addressed(tg):
    engine = ScriptedEngine(default=[FinalReply("答")])
    async with running_bot(tg, engine):
        tg.group_text(GROUP, "大家早上好")  # not addressed
        tg.group_text(GROUP, "/ask@OtherBot 别的机器人")  # another bot's command
        tg.group_text(GROUP, f"@{BOT_USERNAME} 什么是仁？")
        await tg.wait_for(lambda: tg.messages_in(GROUP))
        bot_message = tg.messages_in(GROUP)[0]
        tg.group_text(GROUP, "那什么是礼？", reply_to=bot_message.message_id)
        tg.group_text(GROUP, f"/ask@{BOT_USERNAME} 什么是义？")
        tg.group_text(GROUP, "/ask 什么是智？")
        mention = {
            "type": "text_mention",
            "offset": 0,
            "length": 2,
            "user": {"id": BOT_ID, "is_bot": True, "first_name": "Fuzi"},
        }
        tg.message(GROUP, "夫子，何为信？", chat_type="supergroup", entities=[mention])
        await tg.wait_for(lambda: len(engine.received) == 7 and len(tg.messages_in(GROUP)) == 5)
    context = [i for i in engine.received if not i.addressed]
    assert sorted(i.text for i in context) == sorted(["大家早上好", "/ask@OtherBot 别的机器人"])
    addressed = [i for i in engine.received if i.addressed]
    texts = [(i.command, i.text) for i in addressed]
    assert (None, "什么是义？") in texts and (None, "什么是智？") in texts  # /ask is a question
    assert (None, "什么是仁？") in texts and (None, "那什么是礼？") in texts and (None, "夫子，何为信？") in texts
    assert all(i.is_group and i.chat_id == str(GROUP) for i in engine.received)
    assert not any("早上好" in m.text or "别的" in m.text for m in tg.messages_in(GROUP))
    assert len(tg.calls_to("sendChatAction", GROUP)) <= 5  # chatter never triggers typing
    replies = [c for c in tg.calls_to("sendMessage", GROUP)]
    assert all(c.params.get("reply_parameters", {}).get("message_id") for c in replies)  # quotes the asker


async def test_group_placeholder_and_edits_spaced_by_group_interval(tg):
    text = "君子喻于义，小人喻于利。" * 10
    engine = ScriptedEngine()
    steps: list = [0.4]
    for i in range(0, len(text), 6):
        steps += [0.03, TextDelta(text[i : i + 6])]
    engine.queue(*steps, FinalReply(text))
    async with running_bot(tg, engine, edit_interval_group_s=0.5):
        tg.group_text(GROUP, f"@{BOT_USERNAME} 义利之辨")
        await tg.wait_for(lambda: any(m.text == text for m in tg.messages_in(GROUP)), timeout=15)
    times = [c.t for c in tg.chat_calls(GROUP)]
    assert tg.chat_calls(GROUP)[0].method == "sendMessage"  # the placeholder: a group's slot goes to text
    assert not tg.calls_to("sendChatAction", GROUP)
    assert all(b - a >= 0.5 for a, b in zip(times, times[1:]))


async def test_skill_keyboard_and_button_choice_reach_the_engine(tg):
    engine = ScriptedEngine()
    choices = {"choices": [("confucius", "孔子"), ("poetry", "诗经")], "current": "confucius"}
    engine.on_text("", Notice("请选择技能：", reason="command", extra=choices))
    engine.on_text("poetry", Notice("已切换到：诗经", reason="command"))
    async with running_bot(tg, engine):
        tg.private_text(20, "/skill")
        await tg.wait_for(lambda: tg.messages_in(20))
        keyboard_message = tg.messages_in(20)[0]
        buttons = [row[0] for row in keyboard_message.reply_markup["inline_keyboard"]]
        assert [b["text"] for b in buttons] == ["✓ 孔子", "诗经"]
        tg.callback(20, keyboard_message.message_id, buttons[1]["callback_data"], user_id=20)
        await tg.wait_for(lambda: len(tg.messages_in(20)) == 2)
    assert tg.calls_to("answerCallbackQuery")
    assert [(i.command, i.text, i.user_id) for i in engine.received] == [("skill", "", "20"), ("skill", "poetry", "20")]
    assert tg.messages_in(20)[1].text == "已切换到：诗经"


async def test_non_text_polite_in_dm_ignored_in_group_unless_addressed(tg):
    engine = ScriptedEngine(default=[FinalReply("答")])
    sticker = {
        "sticker": {
            "file_id": "s1",
            "file_unique_id": "u1",
            "type": "regular",
            "width": 512,
            "height": 512,
            "is_animated": False,
            "is_video": False,
        }
    }
    async with running_bot(tg, engine):
        tg.message(30, None, extra=sticker, user_id=30)
        tg.message(GROUP, None, chat_type="supergroup", extra=sticker)
        await tg.wait_for(lambda: tg.messages_in(30))
        tg.group_text(GROUP, f"@{BOT_USERNAME} 在吗")
        await tg.wait_for(lambda: tg.messages_in(GROUP))
        bot_message = tg.messages_in(GROUP)[0]
        tg.message(GROUP, None, chat_type="supergroup", extra=sticker, reply_to=bot_message.message_id)
        await tg.wait_for(lambda: len(tg.messages_in(GROUP)) == 2)
    # stickers reach the engine as media (core/media answers them in one line); the unaddressed one never does
    assert [(i.chat_id, i.text, [m.kind for m in i.media]) for i in engine.received] == [
        ("30", "", ["sticker"]),
        (str(GROUP), "在吗", []),
        (str(GROUP), "", ["sticker"]),
    ]
    assert tg.messages_in(30)[0].text == "答" and tg.messages_in(GROUP)[1].text == "答"


async def test_bot_and_channel_messages_ignored(tg):
    engine = ScriptedEngine(default=[FinalReply("答")])
    async with running_bot(tg, engine):
        tg.push_update(
            {
                "message": {
                    "message_id": 5,
                    "date": 0,
                    "chat": {"id": 40, "type": "private"},
                    "from": {"id": 99, "is_bot": True, "first_name": "x"},
                    "text": "hi",
                }
            }
        )
        tg.push_update(
            {
                "channel_post": {
                    "message_id": 6,
                    "date": 0,
                    "chat": {"id": -1002, "type": "channel"},
                    "text": f"@{BOT_USERNAME} hi",
                }
            }
        )
        tg.private_text(41, "真人")
        await tg.wait_for(lambda: tg.messages_in(41))
        await asyncio.sleep(0.2)
    assert [i.text for i in engine.received] == ["真人"]


async def test_webhook_mode_accepts_updates_with_the_secret_only(tg):
    import json
    import socket

    import aiohttp

    port = free_port()
    engine = ScriptedEngine(default=[FinalReply("答")])
    settings = dict(
        mode="webhook",
        webhook_url="https://fuzi.example/telegram",
        webhook_listen="127.0.0.1",
        webhook_port=port,
        webhook_secret="s3cret",
    )
    update = {
        "update_id": 1,
        "message": {
            "message_id": 9,
            "date": 0,
            "chat": {"id": 50, "type": "private"},
            "from": {"id": 50, "is_bot": False, "first_name": "Zeng"},
            "text": "吾日三省吾身",
        },
    }
    async with running_bot(tg, engine, **settings):
        set_webhook = tg.calls_to("setWebhook")
        assert set_webhook and set_webhook[0].params["url"] == "https://fuzi.example/telegram"
        assert set_webhook[0].params["secret_token"] == "s3cret"
        async with aiohttp.ClientSession() as http:
            url = f"http://127.0.0.1:{port}/telegram"
            headers = {"Content-Type": "application/json"}
            async with http.post(
                url, data=json.dumps(update), headers={**headers, "X-Telegram-Bot-Api-Secret-Token": "wrong"}
            ) as bad:
                assert bad.status == 403
            async with http.post(
                url, data=json.dumps(update), headers={**headers, "X-Telegram-Bot-Api-Secret-Token": "s3cret"}
            ) as good:
                assert good.status == 200
        await tg.wait_for(lambda: tg.messages_in(50))
    assert [i.text for i in engine.received] == ["吾日三省吾身"]


async def test_polling_survives_gateway_errors(tg):
    engine = ScriptedEngine(default=[FinalReply("答")])
    tg.fail("getUpdates", status=502, times=1)
    async with running_bot(tg, engine):
        tg.private_text(60, "还在吗")
        await tg.wait_for(lambda: tg.messages_in(60), timeout=20)
    assert tg.calls_to("getUpdates")[0].status == 502


async def test_run_telegram_starts_and_stops_on_event(tg):
    from adapters.telegram.app import run_telegram
    from adapters.telegram.settings import TelegramSettings
    from tests.fakes.telegram_api import TOKEN

    engine = ScriptedEngine(default=[FinalReply("答")])
    stop = asyncio.Event()
    settings = TelegramSettings(bot_token=TOKEN, api_base_url=tg.base_url, poll_timeout_s=1)
    task = asyncio.create_task(run_telegram(settings, engine, stop_event=stop))
    tg.private_text(61, "你好")
    await tg.wait_for(lambda: tg.messages_in(61), timeout=10)
    stop.set()
    await asyncio.wait_for(task, 10)
    assert [i.text for i in engine.received] == ["你好"]


def test_forum_topics_are_separate_conversations_and_mentions_are_stripped():
    from telegram import Message

    from adapters.telegram.routing import conversation_id, route, strip_mention

    raw = {
        "message_id": 3,
        "date": 0,
        "message_thread_id": 77,
        "is_topic_message": True,
        "chat": {"id": GROUP, "type": "supergroup", "is_forum": True, "title": "论语读书会"},
        "from": {"id": 5, "is_bot": False, "first_name": "Zilu"},
        "text": f"请问 @{BOT_USERNAME.lower()} 何为勇？",
        "entities": [{"type": "mention", "offset": 3, "length": len(BOT_USERNAME) + 1}],
    }
    message = Message.de_json(raw, None)
    r = route(message, BOT_ID, BOT_USERNAME)
    assert r is not None and r.kind == "text" and r.text == "请问 何为勇？"
    assert conversation_id(message) == f"{GROUP}/77"
    assert strip_mention(f"@{BOT_USERNAME}", BOT_USERNAME) == ""
