"""/settings through the engine: show, change, admin rule, refusals, the change log and the listener hook."""

from __future__ import annotations

from datetime import time

from core.storage.chat_settings import Daily
from core.types import Incoming
from tests.helpers_engine import collect, incoming, make_service, notices, sqlite_storage


class FakeAdmins:
    """An AdminCheck that answers from a set, counting calls and whether they asked for a fresh answer."""

    def __init__(self, admins: set[str], fail: bool = False):
        self.admins, self.fail, self.calls = admins, fail, []

    async def is_admin(self, chat_id: str, user_id: str, *, fresh: bool = False) -> bool:
        self.calls.append((chat_id, user_id, fresh))
        if self.fail:
            raise ConnectionError("platform down")
        return user_id in self.admins


def tg(text: str, *, user: str = "bob", chat: str = "-100", group: bool = True, command: str = "settings", **kw):
    """A Telegram group command as the adapter hands it over."""
    return Incoming("telegram", user, chat, text, user_name=user, is_group=group, command=command, **kw)


async def say(service, message) -> tuple[str, dict]:
    [notice] = notices(await collect(service, message))
    return notice.text, notice.extra


async def test_dm_person_owns_settings_and_show_lists_them(tmp_path):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage)
    text, extra = await say(service, incoming("", command="settings"))
    assert extra["settings"] == {
        "skill": "default",
        "script": "auto",
        "daily": "off",
        "books": "all",
    }  # no digest in a DM
    assert extra["can_change"] is True and "daily" in text
    text, extra = await say(service, incoming("script traditional", command="settings"))
    assert extra["changed"] == "script" and extra["settings"]["script"] == "traditional"
    text, extra = await say(service, incoming("daily 8:00 pm asia/taipei", command="settings"))
    assert extra["settings"]["daily"] == "20:00 Asia/Taipei" and "20:00 Asia/Taipei" in text
    settings = await storage.settings.fresh("console:c1")
    assert settings.script == "traditional" and settings.daily == Daily(time(20), "Asia/Taipei")
    [log_new, log_old] = await storage.settings.history("console:c1")
    assert (log_new.field, log_new.old_value, log_new.new_value, log_new.account) == (
        "daily",
        "off",
        "20:00 Asia/Taipei",
        "console:alice",
    )
    assert log_old.field == "script" and log_new.created_at is not None


async def test_group_non_admin_refused_admin_allowed_demotion_honoured(tmp_path):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage)
    check = FakeAdmins({"ann"})
    service.register_admin_check("telegram", check)
    text, extra = await say(service, tg("script traditional", user="bob"))
    assert extra["refused"] == "not_admin" and "\n" not in text and "admin" in text
    assert (await storage.settings.fresh("telegram:-100")).script is None
    _, extra = await say(service, tg("script traditional", user="ann"))
    assert extra["settings"]["script"] == "traditional"
    assert check.calls[-1] == ("-100", "ann", True)  # a change asks for a fresh answer
    check.admins.clear()  # Ann is demoted
    _, extra = await say(service, tg("script simplified", user="ann"))
    assert extra["refused"] == "not_admin"
    text, extra = await say(service, tg("", user="bob"))  # anyone may look
    assert extra["can_change"] is False and extra["settings"]["script"] == "traditional"


async def test_anonymous_admin_and_operators_count_as_admins(tmp_path):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage, admins=frozenset({"telegram:op"}))
    service.register_admin_check("telegram", FakeAdmins(set()))
    _, extra = await say(service, tg("digest on", user="1087968824", sender_admin=True))  # posted as the group
    assert extra["settings"]["digest"] == "on"
    _, extra = await say(service, tg("digest off", user="op"))
    assert extra["settings"]["digest"] == "off"
    _, extra = await say(service, tg("digest on", user="x", sender_admin=False))
    assert extra["refused"] == "not_admin"


async def test_unverifiable_admin_is_refused_in_one_line(tmp_path):
    service = make_service(sqlite_storage(tmp_path))
    text, extra = await say(service, tg("script traditional"))  # no check registered for telegram
    assert extra["refused"] == "unknown" and "\n" not in text
    service.register_admin_check("telegram", FakeAdmins({"bob"}, fail=True))
    text, extra = await say(service, tg("script traditional"))
    assert extra["refused"] == "unknown"


async def test_bad_keys_and_values_are_one_line_refusals(tmp_path):
    service = make_service(sqlite_storage(tmp_path))
    for args, why in [
        ("colour blue", "unknown_key"),
        ("script cursive", "bad_value"),
        ("daily 25:00", "bad_value"),
        ("daily 8:00 Mars/Base", "bad_value"),
        ("skill cooking", "bad_value"),
        ("digest on", "groups_only"),  # a DM
    ]:
        text, extra = await say(service, incoming(args, command="settings"))
        assert extra["refused"] == why, (args, text)
        assert text.count("\n") == 0 or why == "unknown_key", text


async def test_skill_in_a_group_is_an_admin_setting_too(tmp_path):
    storage = sqlite_storage(tmp_path)
    service = make_service(storage)
    service.register_admin_check("telegram", FakeAdmins({"ann"}))
    _, extra = await say(service, tg("poetry", user="bob", command="skill"))
    assert extra["refused"] == "not_admin" and extra["current"] == "teaching"
    _, extra = await say(service, tg("poetry", user="ann", command="skill"))
    assert extra["current"] == "poetry"
    _, extra = await say(service, tg("skill debate", user="ann"))
    assert extra["skill"] == "debate"
    assert [c.new_value for c in await storage.settings.history("telegram:-100")] == ["debate", "poetry"]


async def test_listener_hears_real_changes_and_may_add_a_line(tmp_path):
    service = make_service(sqlite_storage(tmp_path))
    service.register_admin_check("telegram", FakeAdmins({"ann"}))
    heard = []

    class Digest:
        async def settings_changed(self, change, incoming):
            heard.append((change.field, change.old, change.new, incoming.user_id))
            return "本群消息只存 48 小时。" if change.new == "on" else None

    class Broken:
        async def settings_changed(self, change, incoming):
            raise RuntimeError("listener bug")

    service.add_settings_listener(Broken())
    service.add_settings_listener(Digest())
    text, _ = await say(service, tg("digest on", user="ann"))
    assert "48 小时" in text
    await say(service, tg("digest on", user="ann"))  # unchanged: nobody is told
    text, _ = await say(service, tg("digest off", user="ann"))
    assert heard == [("digest", "off", "on", "ann"), ("digest", "on", "off", "ann")]
