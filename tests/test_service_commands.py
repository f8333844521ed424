"""Commands through the engine: /start, /help, /skill (menu, switch, persistence), unknown commands."""

from __future__ import annotations

from core.engine.commands import CommandRouter
from core.ports import CommandResult
from tests.helpers_engine import collect, incoming, make_service, notices, sqlite_storage


async def test_help_lists_builtins_and_later_registered_commands(tmp_path):
    router = CommandRouter()
    service = make_service(sqlite_storage(tmp_path), router=router)

    async def remember(turn, args):
        return CommandResult(f"记住了：{args}")

    router.register("remember", remember, summary_zh="记住一件事", summary_en="Remember something")
    [notice] = notices(await collect(service, incoming("", command="help")))
    assert notice.reason == "command"
    for name in ("/start", "/help", "/skill", "/cancel", "/remember"):
        assert name in notice.text
    assert [c[0] for c in router.commands()] == ["start", "help", "skill", "cancel", "settings", "remember"]
    [notice] = notices(await collect(service, incoming("仁", command="remember")))
    assert notice.text == "记住了：仁"


async def test_skill_menu_then_switch_persists_for_a_new_service(tmp_path):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage)
    [menu] = notices(await collect(service, incoming("", command="skill")))
    assert menu.extra["current"] == "teaching"
    assert [name for name, _ in menu.extra["choices"]] == ["teaching", "poetry", "debate"]
    [switched] = notices(await collect(service, incoming("poetry", command="skill")))
    assert switched.extra["current"] == "poetry" and "诗词赏析" in switched.text

    again = make_service(sqlite_storage(tmp_path))  # same database file, fresh engine and service
    [menu] = notices(await collect(again, incoming("", command="skill")))
    assert menu.extra["current"] == "poetry"
    [other_chat] = notices(await collect(again, incoming("", command="skill", chat="c2")))
    assert other_chat.extra["current"] == "teaching"


async def test_skill_by_display_name_and_unknown_skill(tmp_path):
    service = make_service(sqlite_storage(tmp_path))
    [ok] = notices(await collect(service, incoming("经学辩论", command="skill")))
    assert ok.extra["current"] == "debate"
    [bad] = notices(await collect(service, incoming("cooking", command="skill")))
    assert bad.extra["current"] == "debate" and "cooking" in bad.text


async def test_unknown_command_gets_a_hint_and_commands_are_not_stored(tmp_path):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage)
    [notice] = notices(await collect(service, incoming("x", command="dance")))
    assert notice.reason == "unknown_command" and "/help" in notice.text
    await collect(service, incoming("", command="start"))
    assert await storage.messages.count("console:c1") == 0


async def test_cancel_with_nothing_running(tmp_path):
    service = make_service(sqlite_storage(tmp_path))
    [notice] = notices(await collect(service, incoming("", command="cancel")))
    assert notice.extra == {"cancelled": False}


async def test_unaddressed_group_message_yields_nothing_and_is_kept_as_context(tmp_path):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage)
    assert await collect(service, incoming("大家好", is_group=True, addressed=False)) == []
    [row] = await storage.messages.recent("console:c1", 5)
    assert (row.text, row.status, row.speaker) == ("大家好", "context", "alice")


async def test_menus_for_adapters(tmp_path):
    service = make_service(sqlite_storage(tmp_path))
    assert [name for name, _, _ in service.commands()] == ["start", "help", "skill", "cancel", "settings"]
    assert service.skills()[1] == ("poetry", "诗词赏析 (Poetry)")
