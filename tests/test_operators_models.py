"""The model per chat: `/settings model NAME` sends that chat's LLM calls, and nobody else's, to NAME.

Real openai SDK against the loopback fake server (the model each request named is in its body), the
real engine over SQLite; the reply's figures land in `reply_stats` per model.
"""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from core.chatsettings.values import BadValue, parse_model
from core.llm.choice import ModelChoice, parse_models
from core.llm.client import OpenAIChatClient
from core.llm.retry import RetryPolicy
from core.storage.chat_settings import MODELS_ACCOUNT
from core.storage.models import ReplyStats
from tests.fakes.discord_server import fake_discord  # noqa: F401
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_db import database_url, postgres_url  # noqa: F401
from tests.helpers_engine import collect, final_of, incoming, make_service, notices, sqlite_storage

MODELS = ModelChoice("base-model", ("big-model", "small-model"))


@pytest.fixture
def engine(tmp_path, fake_llm):
    client = OpenAIChatClient(
        base_url=fake_llm.base_url, api_key="sk-test", model="base-model", timeout_s=5, retry=RetryPolicy(attempts=1)
    )
    storage = sqlite_storage(tmp_path)
    return make_service(storage, llm=client, models=MODELS), storage


async def say(service, message) -> tuple[str, dict]:
    [notice] = notices(await collect(service, message))
    return notice.text, notice.extra


async def test_one_chat_picks_a_model_and_only_its_calls_go_there(engine, fake_llm):
    service, storage = engine
    text, extra = await say(service, incoming("model big-model", chat="a", command="settings"))
    assert extra["changed"] == "model" and extra["model"] == "big-model" and "big-model" in text
    fake_llm.stream_text("子曰：学而时习之。", usage=(30, 7))
    final_of(await collect(service, incoming("何谓学？", chat="a")))
    fake_llm.stream_text("子曰：温故而知新。", usage=(20, 5))
    final_of(await collect(service, incoming("何谓师？", chat="b", user="bob")))
    assert [r["model"] for r in fake_llm.requests] == ["big-model", "base-model"]
    _, shown = await say(service, incoming("", chat="b", user="bob", command="settings"))
    assert shown["model"] == "base-model" and shown["settings"]["model"] == "default"
    assert shown["models"] == ["base-model", "big-model", "small-model"]
    with Session(storage.engine) as s:
        rows = {r.chat_key: r for r in s.exec(select(ReplyStats))}
    assert (rows["console:a"].model, rows["console:a"].prompt_tokens, rows["console:a"].completion_tokens) == (
        "big-model",
        30,
        7,
    )
    assert (rows["console:b"].model, rows["console:b"].level) == ("base-model", 1)  # no agent: the plain LLM
    assert rows["console:a"].final_ms >= (rows["console:a"].first_visible_ms or 0) >= 0


@pytest.mark.parametrize(
    "name",
    ["gpt 4o", "模型", "x" * 1000, "big-model\nsmall-model", "../etc"],
)
async def test_malformed_or_unknown_names_are_refused_in_one_line(engine, fake_llm, name):
    service, storage = engine
    text, extra = await say(service, incoming(f"model {name}", command="settings"))
    assert extra["refused"] == "bad_value" and "\n" not in text and len(text) < 300
    assert "base-model, big-model, small-model" in text
    assert (await storage.settings.fresh("console:c1")).model is None


async def test_unknown_model_names_the_list_and_default_resets(engine):
    service, storage = engine
    text, _ = await say(service, incoming("model gpt-5", command="settings"))
    assert "Unknown model" in text and "big-model" in text
    await say(service, incoming("model small-model", command="settings"))
    assert (await storage.settings.fresh("console:c1")).model == "small-model"
    _, extra = await say(service, incoming("model default", command="settings"))
    assert extra["model"] == "base-model" and (await storage.settings.fresh("console:c1")).model is None


async def test_group_members_who_are_not_admins_cannot_pick(engine):
    service, storage = engine

    class NoAdmins:
        async def is_admin(self, chat_id, user_id, *, fresh=False):
            return False

    service.register_admin_check("telegram", NoAdmins())
    from core.types import Incoming

    message = Incoming("telegram", "bob", "-100", "model big-model", is_group=True, command="settings")
    _, extra = await say(service, message)
    assert extra["refused"] == "not_admin" and (await storage.settings.fresh("telegram:-100")).model is None


async def test_a_model_dropped_from_the_list_sends_its_chats_back_with_one_log_line(engine, fake_llm, caplog):
    from structlog.testing import capture_logs

    service, storage = engine
    await say(service, incoming("model small-model", chat="a", command="settings"))
    await say(service, incoming("model big-model", chat="b", command="settings"))
    with capture_logs() as logs:
        reset = await storage.settings.reset_models(ModelChoice("base-model", ("big-model",)).names)
    assert reset == 1
    assert [e["event"] for e in logs if e["event"].startswith("chat_models")] == ["chat_models_reset"]
    assert (await storage.settings.fresh("console:a")).model is None
    assert (await storage.settings.fresh("console:b")).model == "big-model"
    [change, *_] = await storage.settings.history("console:a")
    assert (change.old_value, change.new_value, change.account) == ("small-model", "default", MODELS_ACCOUNT)
    service.models_choice = ModelChoice("base-model", ("big-model",))  # what a replica with the new list does
    fake_llm.stream_text("可。")
    await collect(service, incoming("问", chat="a"))
    assert fake_llm.requests[-1]["model"] == "base-model"


def test_the_setting_parses_names_and_refuses_bad_ones():
    assert parse_models(" a , b,,a,c/d:1 ") == ("a", "b", "c/d:1")
    with pytest.raises(ValueError, match="not a model name"):
        parse_models("good, bad name")
    with pytest.raises(BadValue, match="Only one model"):
        parse_model("x", ModelChoice("base-model"))


async def test_usage_shows_the_day_s_tokens_per_model(tmp_path, fake_llm):
    from core.guards.guard import FuziGuard
    from core.guards.usage import UsageStore

    client = OpenAIChatClient(
        base_url=fake_llm.base_url, api_key="sk-test", model="base-model", timeout_s=5, retry=RetryPolicy(attempts=1)
    )
    storage = sqlite_storage(tmp_path)
    from core.guards.limits import InMemoryRateLimiter, Quota

    guard = FuziGuard(InMemoryRateLimiter(Quota(per_minute=100, per_day=100)), usage=UsageStore(storage.engine))
    from core.engine.commands import CommandRouter

    router = CommandRouter()
    guard.register_commands(router)
    service = make_service(storage, llm=client, models=MODELS, router=router)
    await say(service, incoming("model small-model", command="settings"))
    fake_llm.stream_text("可。", usage=(11, 2))
    await collect(service, incoming("问"))
    text, extra = await say(service, incoming("", command="usage"))
    assert extra["models"] == {"small-model": {"prompt_tokens": 11, "completion_tokens": 2}}
    assert "small-model" in text


async def test_telegram_group_admin_picks_the_group_s_model_alone(tmp_path, fake_llm, tg):
    from tests.fakes.telegram_api import BOT_USERNAME
    from tests.helpers_telegram import running_bot

    client = OpenAIChatClient(base_url=fake_llm.base_url, api_key="sk-test", model="base-model", timeout_s=5)
    storage = sqlite_storage(tmp_path)
    service = make_service(storage, llm=client, models=MODELS)
    group, other, ann, bo = -100777, -100888, 31, 55
    tg.members[(group, ann)] = "administrator"
    async with running_bot(tg, service):
        tg.group_text(group, "/settings model big-model", user_id=bo)
        await tg.wait_for(lambda: tg.messages_in(group))
        assert "Only group admins" in tg.messages_in(group)[-1].text
        tg.group_text(group, "/settings model gpt 4o", user_id=ann)
        await tg.wait_for(lambda: len(tg.messages_in(group)) == 2)
        refusal = tg.messages_in(group)[-1].text
        assert "\n" not in refusal and "base-model, big-model, small-model" in refusal
        tg.group_text(group, "/settings", user_id=ann)
        await tg.wait_for(lambda: len(tg.messages_in(group)) == 3)
        menu = tg.messages_in(group)[-1]
        buttons = {b["callback_data"] for row in menu.reply_markup["inline_keyboard"] for b in row}
        assert {"set:model base-model", "set:model big-model", "set:model small-model"} <= buttons
        tg.callback(group, menu.message_id, "set:model big-model", user_id=ann)
        await tg.wait_for(lambda: "big-model" in tg.messages[(group, menu.message_id)].text)
        fake_llm.reply_text("学而时习之。").reply_text("温故而知新。")
        tg.group_text(group, f"@{BOT_USERNAME} 何为学？", user_id=bo)
        await tg.wait_for(lambda: any(m.text == "学而时习之。" for m in tg.messages_in(group)), timeout=20)
        tg.group_text(other, f"@{BOT_USERNAME} 何为师？", user_id=bo + 1)
        await tg.wait_for(lambda: any(m.text == "温故而知新。" for m in tg.messages_in(other)), timeout=20)
    assert [r["model"] for r in fake_llm.requests] == ["big-model", "base-model"]
    assert (await storage.settings.fresh(f"telegram:{group}")).model == "big-model"
    assert (await storage.settings.fresh(f"telegram:{other}")).model is None


async def test_the_console_picks_a_model(tmp_path, fake_llm):
    """`fuzi chat`'s terminal: its person owns the chat, so /settings model works there as anywhere."""
    import io

    from adapters.console import ConsoleAdapter, ConsoleIdentity

    client = OpenAIChatClient(base_url=fake_llm.base_url, api_key="sk-test", model="base-model", timeout_s=5)
    storage = sqlite_storage(tmp_path)
    out = io.StringIO()
    adapter = ConsoleAdapter(
        make_service(storage, llm=client, models=MODELS), ConsoleIdentity("u1", "dm-u1"), out, interactive=False
    )
    await adapter.say("/settings model small-model")
    await adapter.say("/settings model 大模型")
    fake_llm.reply_text("可。")
    await adapter.say("何为学？")
    await adapter.say("/settings")
    written = out.getvalue()
    assert "small-model" in written and "Not a model name" in written and "模型 model: small-model" in written
    assert fake_llm.requests[-1]["model"] == "small-model"


async def test_discord_settings_model_offers_the_list_as_choices(tmp_path, fake_llm, fake_discord):
    from tests.helpers_discord import running_bot as discord_bot

    client = OpenAIChatClient(base_url=fake_llm.base_url, api_key="sk-test", model="base-model", timeout_s=5)
    storage = sqlite_storage(tmp_path)
    service = make_service(storage, llm=client, models=MODELS)
    chat = f"discord:{fake_discord.channel['id']}"
    admin = str((1 << 4) | (1 << 11))  # Manage Channels, Send Messages
    async with discord_bot(fake_discord, service):
        picked = await fake_discord.slash("settings", {"value": "small-model"}, subcommand="model", permissions=admin)
        await fake_discord.wait_until(
            lambda: "small-model" in (fake_discord.original(picked["token"]) or {}).get("content", "")
        )
    synced = fake_discord.calls("PUT", r"/commands$")[-1].body
    group = next(c for c in synced if c["name"] == "settings")
    model = next(o for o in group["options"] if o["name"] == "model")
    assert [c["value"] for c in model["options"][0]["choices"]] == ["base-model", "big-model", "small-model"]
    assert (await storage.settings.fresh(chat)).model == "small-model"


async def test_two_replicas_on_one_database_change_exactly_one_chat(database_url, fake_llm):  # noqa: F811
    """Replica A changes chat X's model; replica B (its own engine, its own settings cache) sends X's
    calls to it from its next message (a message reads its chat's settings afresh, with its person:
    core/storage/arrival.py), and chat Y's to the default."""
    from core.storage import Storage, open_database

    one, two = open_database(database_url), open_database(database_url)
    client = OpenAIChatClient(base_url=fake_llm.base_url, api_key="sk-test", model="base-model", timeout_s=5)
    try:
        a, b = Storage(one), Storage(two)
        replica_a = make_service(a, llm=client, models=MODELS)
        replica_b = make_service(b, llm=client, models=MODELS)
        await collect(replica_b, incoming("问", chat="x"))  # B has read X's settings: cached
        await say(replica_a, incoming("model small-model", chat="x", command="settings"))
        await collect(replica_b, incoming("问", chat="x"))  # B's cache of X is fresh, yet its next message sees it
        await collect(replica_b, incoming("问", chat="x"))
        await collect(replica_b, incoming("问", chat="y", user="bob"))
        await collect(replica_a, incoming("问", chat="y", user="bob"))
    finally:
        await client.aclose()
        one.dispose()
        two.dispose()
    assert [r["model"] for r in fake_llm.requests] == [
        "base-model",
        "small-model",
        "small-model",
        "base-model",
        "base-model",
    ]
