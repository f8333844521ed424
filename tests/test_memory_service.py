"""End to end through the real ChatService and ReAct agent: remember in a Telegram DM via the tool,
link to Discord, and the fact is there in a Discord DM but never in a Discord group.
"""

from __future__ import annotations

from core.agent.loop import Agent
from core.engine.commands import CommandRouter
from core.events import FinalReply, Notice
from core.llm.client import OpenAIChatClient
from core.llm.retry import RetryPolicy
from core.memory import MemoryConfig, build_memory, register_memory
from core.tools.toolset import Toolset
from core.types import Incoming
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_engine import collect, make_service, sqlite_storage
from tests.test_memory_fixtures import HashEmbedder, all_text, kind

FACT = "我下周要考《论语》"


class Script:
    """Chat requests get queued answers (text or tool calls); summary/profile requests get defaults."""

    def __init__(self) -> None:
        self.chat: list = []

    def __call__(self, body: dict):
        which = kind(body)
        if which == "summary":
            return "摘要"
        if which == "profile":
            return '{"language": "zh"}'
        return self.chat.pop(0) if self.chat else "子曰：温故而知新。"


def msg(platform: str, user: str, text: str, *, chat: str | None = None, group: bool = False, command=None):
    return Incoming(
        platform=platform,
        user_id=user,
        chat_id=chat or f"dm-{user}",
        text=text,
        user_name=user,
        is_group=group,
        command=command,
    )


async def test_remember_link_and_scope_through_the_engine(tmp_path, fake_llm):
    script = Script()
    fake_llm.set_default(script)
    storage = sqlite_storage(tmp_path)
    llm = OpenAIChatClient(base_url=fake_llm.base_url, api_key="sk", model="m", retry=RetryPolicy(attempts=1))
    memory = build_memory(storage.engine, llm, HashEmbedder(), MemoryConfig(window_rounds=2))
    router, tools = CommandRouter(), Toolset()
    register_memory(memory, router=router, toolset=tools)
    agent = Agent(llm, tools, max_rounds=3)
    service = make_service(storage, llm=llm, agent=agent, router=router, context=memory.context)

    script.chat += [[("remember", {"fact": FACT})], "好，夫子记下了。"]
    events = await collect(service, msg("telegram", "t1", f"请记住：{FACT}"))
    assert any(isinstance(e, FinalReply) and "记下" in e.text for e in events)
    second_round = [b for b in fake_llm.requests if kind(b) == "chat"][1]["messages"]
    assert any(m["role"] == "tool" and FACT in m["content"] for m in second_round)

    events = await collect(service, msg("telegram", "t1", "", command="link"))
    [code_notice] = [e for e in events if isinstance(e, Notice)]
    [linked] = await collect(service, msg("discord", "d1", code_notice.extra["code"], command="link"))
    assert linked.extra["status"] == "linked"

    await collect(service, msg("discord", "d1", "我下周要做什么？", chat="guild-chan", group=True))
    group_request = [b for b in fake_llm.requests if kind(b) == "chat"][-1]
    assert FACT not in all_text(group_request["messages"])

    await collect(service, msg("discord", "d1", "我下周要做什么？"))
    dm_request = [b for b in fake_llm.requests if kind(b) == "chat"][-1]
    assert FACT in dm_request["messages"][0]["content"]  # private fact, linked account, private chat
    assert {t["function"]["name"] for t in dm_request["tools"]} >= {"remember", "recall"}

    [listing] = await collect(service, msg("discord", "d1", "", command="memories"))
    assert f"1. {FACT}" in listing.text
    await service.aclose()
    await memory.aclose()
    await llm.aclose()
