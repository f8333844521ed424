"""`/read` and the menu button open the reading room (FUZI_WEB_PUBLIC_URL): a Mini App button in
private chats, a link to the main Mini App in groups; without the setting `/read` says so. The real
PTB against the fake Bot API."""

from __future__ import annotations

import json

from adapters.telegram.reading import NOT_OPEN, ReadingRoomLink
from bot.commands.run import reading_link
from bot.settings import Settings
from core.events import Citation, FinalReply
from tests.fakes.engine import ScriptedEngine
from tests.fakes.telegram_api import BOT_USERNAME
from tests.helpers_telegram import running_bot

GROUP = -1002
LINK = ReadingRoomLink("https://fuzi.example")


def markup_of(message) -> dict:
    markup = message.reply_markup
    return json.loads(markup) if isinstance(markup, str) else markup


async def test_read_opens_the_mini_app_in_private_and_links_it_in_groups(tg):
    engine = ScriptedEngine()
    async with running_bot(tg, engine, reading=LINK):
        await tg.wait_for(lambda: tg.calls_to("setChatMenuButton") and len(tg.calls_to("setMyCommands")) == 3)
        tg.private_text(5, "/read")
        tg.group_text(GROUP, f"/read@{BOT_USERNAME}")
        await tg.wait_for(lambda: tg.messages_in(5) and tg.messages_in(GROUP))
    private = markup_of(tg.messages_in(5)[0])["inline_keyboard"][0][0]
    group = markup_of(tg.messages_in(GROUP)[0])["inline_keyboard"][0][0]
    assert private["web_app"] == {"url": "https://fuzi.example/read"}
    assert group["url"] == f"https://t.me/{BOT_USERNAME}?startapp=read" and "web_app" not in group
    menu = tg.calls_to("setChatMenuButton")[0].params["menu_button"]
    menu = json.loads(menu) if isinstance(menu, str) else menu
    assert menu == {"type": "web_app", "text": "读书", "web_app": {"url": "https://fuzi.example/read"}}
    commands = {c.params.get("language_code"): c.params["commands"] for c in tg.calls_to("setMyCommands")}
    assert any(c["command"] == "read" for c in commands["zh"])
    assert engine.received == []  # /read never reaches the engine


async def test_without_a_public_url_read_says_it_is_not_open(tg):
    async with running_bot(tg, ScriptedEngine()):
        await tg.wait_for(lambda: len(tg.calls_to("setMyCommands")) == 3)
        tg.private_text(6, "/read")
        await tg.wait_for(lambda: tg.messages_in(6))
    assert tg.messages_in(6)[0].text == NOT_OPEN and not tg.calls_to("setChatMenuButton")
    commands = {c.params.get("language_code"): c.params["commands"] for c in tg.calls_to("setMyCommands")}
    assert not any(c["command"] == "read" for c in commands["zh"])


def test_the_link_follows_the_public_url():
    assert reading_link(Settings()) is None or Settings().web.public_url
    link = reading_link(Settings(web={"public_url": "https://fuzi.example/"}))
    assert link is not None and link.url == "https://fuzi.example/read"
    assert link.passage("lunyu:1.3") == "https://fuzi.example/read?p=lunyu%3A1.3"


async def test_footnotes_link_to_the_passage_in_the_reading_room(tg):
    citations = (
        Citation(1, "lunyu:3.22", "《论语·八佾》第22章"),
        Citation(2, "https://example.org/guanzhong", "管仲传"),  # a web page: no reading-room link
    )
    final = FinalReply("管仲之器小哉[1]，事见[2]。", citations=citations)
    async with running_bot(tg, ScriptedEngine(default=[final]), reading=LINK):
        tg.private_text(7, "夫子如何评价管仲？")
        await tg.wait_for(lambda: any("管仲传" in m.text for m in tg.messages_in(7)))
        sent = [m for m in tg.messages_in(7) if "管仲传" in m.text][-1]
    assert f'<a href="https://t.me/{BOT_USERNAME}?startapp=lunyu-3_22">《论语·八佾》第22章</a>' in sent.source
    assert "[2] 管仲传" in sent.text and "example.org" not in sent.source


async def test_footnotes_stay_plain_without_a_public_url(tg):
    final = FinalReply("管仲之器小哉[1]。", citations=(Citation(1, "lunyu:3.22", "《论语·八佾》第22章"),))
    async with running_bot(tg, ScriptedEngine(default=[final])):
        tg.private_text(8, "夫子如何评价管仲？")
        await tg.wait_for(lambda: any("第22章" in m.text for m in tg.messages_in(8)))
    assert all("<a " not in m.source for m in tg.messages_in(8))
