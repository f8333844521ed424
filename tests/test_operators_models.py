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
from tests.fakes.openai_server import fake_llm  # noqa: F401
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
    service.models = ModelChoice("base-model", ("big-model",))  # what a replica with the new list does
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
