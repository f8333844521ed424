"""Inferred profile: extracted after the reply, merged, labelled lower trust; failures change nothing."""

from __future__ import annotations

import json

from core.memory.profile import merge_profile, parse_profile
from tests.fakes.openai_server import Hang, Reply, fake_llm  # noqa: F401
from tests.test_memory_fixtures import (  # noqa: F401
    SYSTEM,
    dm,
    error_503,
    make_engine,
    profile_json,
    requests_of,
    script,
)


async def test_profile_is_extracted_merged_and_injected_as_inferred(make_engine, script, fake_llm):
    eng = make_engine()
    script.profiles += [
        profile_json(addressing="夫子", level="beginner", interests=["诗经"], language="zh"),
        profile_json(level="intermediate", interests=["礼", "诗经"], password="hunter2"),
    ]
    await eng.say(dm("a", "夫子，我刚开始读诗经"))
    req = requests_of(fake_llm, "profile")[0]
    assert "夫子，我刚开始读诗经" in req["messages"][-1]["content"]
    assert req["temperature"] == 0.0 and req["max_tokens"] == 200  # from data/prompts/profile.yaml
    await eng.say(dm("a", "再讲讲礼"))
    assert '"level": "beginner"' in requests_of(fake_llm, "profile")[1]["messages"][-1]["content"]  # old profile sent

    messages, _ = await eng.say(dm("a", "今天讲什么"))
    system = messages[0]["content"]
    assert system.startswith(SYSTEM)
    block = system[system.index("[推断的用户画像]") :]
    assert "可信度低" in block and "<profile>" in block
    assert "称呼: 夫子" in block and "水平: intermediate" in block and "兴趣: 礼、诗经" in block
    assert "hunter2" not in system
    shown = await eng.command(dm("a"), "profile")
    assert "水平: intermediate" in shown.text and "语言: zh" in shown.text


async def test_profile_failures_change_nothing(make_engine, script, fake_llm):
    eng = make_engine()
    script.profiles += [profile_json(addressing="老师"), error_503(), "这不是 JSON", "[1, 2]"]
    for text in ["一", "二", "三", "四"]:
        await eng.say(dm("a", text))
    assert len(requests_of(fake_llm, "profile")) == 4
    turn = await eng.turn(dm("a"))
    assert await eng.memory.profiles.get(turn.person_id) == {"addressing": "老师"}


async def test_after_reply_does_not_wait_for_the_extraction(make_engine, script, fake_llm):
    eng = make_engine()
    fake_llm.set_default(None)
    inc = dm("a", "你好")
    turn = await eng.turn(inc)
    await eng.storage.messages.add(inc.chat_key, "user", inc.text, account=inc.account, trace_id=inc.trace_id)
    fake_llm.push(Hang(0.3, Reply(text=profile_json(addressing="先生"))))
    await eng.memory.context.after_reply(turn, "子曰：善。")
    assert eng.memory.context.pending >= 1  # returned while the extraction still runs
    assert await eng.memory.profiles.get(turn.person_id) == {}
    await eng.memory.context.drain(10)
    assert eng.memory.context.pending == 0
    assert (await eng.memory.profiles.get(turn.person_id))["addressing"] == "先生"


def test_parse_and_merge_rules():
    assert parse_profile('```json\n{"level": "Advanced", "interests": ["仁", 3, ""]}\n```') == {
        "level": "advanced",
        "interests": ["仁"],
    }
    assert parse_profile('{"level": "expert", "addressing": null}') == {}
    assert parse_profile("no json here") is None
    assert parse_profile(json.dumps({"addressing": '夫"子<'})) == {"addressing": "夫子"}
    old = {"addressing": "老师", "interests": [f"i{n}" for n in range(8)]}
    merged = merge_profile(old, {"interests": ["i0", "new"], "language": "en"})
    assert merged["addressing"] == "老师" and merged["language"] == "en"
    assert merged["interests"][-2:] == ["i0", "new"] and len(merged["interests"]) == 8


async def test_group_prompts_leave_out_inferred_interests(make_engine, script, fake_llm):
    from tests.test_memory_fixtures import group

    eng = make_engine()
    script.profiles.append(profile_json(addressing="夫子", interests=["婚姻烦恼"]))
    await eng.say(dm("a", "夫子，我最近为婚姻烦恼"))
    messages, _ = await eng.say(group("a", "大家好"))
    assert "称呼: 夫子" in messages[0]["content"] and "婚姻" not in messages[0]["content"]
    assert "婚姻" not in (await eng.command(group("a"), "profile")).text
    messages, _ = await eng.say(dm("a", "再说说"))
    assert "兴趣: 婚姻烦恼" in messages[0]["content"]
    assert "婚姻" in (await eng.command(dm("a"), "profile")).text
