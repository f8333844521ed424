"""Skill menus as buttons: a Notice's choices become buttons; a click runs /skill and replaces the menu."""

from __future__ import annotations

from core.events import Notice
from tests.fakes.discord_server import FakeDiscord, fake_discord  # noqa: F401
from tests.fakes.engine import SKILLS, ScriptedEngine
from tests.helpers_discord import running_bot

CHOICES = [list(choice) for choice in SKILLS]


def _menu(current: str) -> Notice:
    return Notice(f"现为 {current}", reason="command", extra={"choices": CHOICES, "current": current})


def _buttons(message: dict) -> list[tuple[str, str, int]]:
    return [(b["custom_id"], b["label"], b["style"]) for row in message["components"] for b in row["components"]]


async def test_dm_menu_buttons_switch_the_skill(fake_discord: FakeDiscord):
    engine = ScriptedEngine()
    engine.queue(_menu("teaching"))
    engine.queue(_menu("poetry"))
    dm = fake_discord.dm_channel_id
    async with running_bot(fake_discord, engine):
        await fake_discord.user_message("/skill", dm=True)
        await fake_discord.wait_until(lambda: fake_discord.channel_messages(dm))
        (menu,) = fake_discord.channel_messages(dm)
        assert _buttons(menu) == [
            ("fuzi:skill:teaching", SKILLS[0][1], 1),  # primary: the current skill
            ("fuzi:skill:poetry", SKILLS[1][1], 2),
            ("fuzi:skill:debate", SKILLS[2][1], 2),
        ]
        click = await fake_discord.click(menu, "fuzi:skill:poetry")
        await fake_discord.wait_until(lambda: menu["content"] == "现为 poetry")
    (callback,) = fake_discord.calls("POST", rf"/interactions/{click['id']}/.+/callback$")
    assert callback.body == {"type": 6}  # deferred update: the menu message itself is answered
    assert [b[2] for b in _buttons(menu)] == [2, 1, 2]
    assert [(i.command, i.text, i.chat_id) for i in engine.received] == [("skill", "", dm), ("skill", "poetry", dm)]
    assert len(fake_discord.channel_messages(dm)) == 1, "the answer replaces the menu"


async def test_slash_menu_buttons_in_a_guild_channel(fake_discord: FakeDiscord):
    engine = ScriptedEngine()
    engine.queue(_menu("teaching"))
    engine.queue(_menu("debate"))
    async with running_bot(fake_discord, engine):
        inter = await fake_discord.slash("skill")
        await fake_discord.wait_until(lambda: (fake_discord.original(inter["token"]) or {}).get("components"))
        menu = fake_discord.original(inter["token"])
        await fake_discord.click(menu, "fuzi:skill:debate")
        await fake_discord.wait_until(lambda: menu["content"] == "现为 debate")
    assert [b[2] for b in _buttons(menu)] == [2, 2, 1]
    click_incoming = engine.received[1]
    assert (click_incoming.command, click_incoming.text, click_incoming.is_group) == ("skill", "debate", True)
