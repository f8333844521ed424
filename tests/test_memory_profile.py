"""Inferred profile: extracted in batches after the reply, merged, labelled lower trust; failures
change nothing and lose nothing; a batch is extracted once, by one process."""

from __future__ import annotations

import asyncio
import json

from core.memory import MemoryConfig
from core.memory.profile import merge_profile, parse_profile
from tests.fakes.openai_server import Hang, Reply, fake_llm  # noqa: F401
from tests.test_memory_fixtures import (  # noqa: F401
    SYSTEM,
    dm,
    error_503,
    group,
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
    sent = [r["messages"][-1]["content"] for r in requests_of(fake_llm, "profile")]
    assert len(sent) == 4
    assert "二" in sent[2] and "三" in sent[2]  # the failed request's exchange waited for the next batch
    assert "二" not in sent[3]  # an answer without a usable profile still took its exchanges
    turn = await eng.turn(dm("a"))
    assert await eng.memory.profiles.get(turn.person_id) == {"addressing": "老师"}


async def test_after_reply_does_not_wait_for_the_extraction(make_engine, script, fake_llm):
    eng = make_engine()
    fake_llm.set_default(None)
    inc = dm("a", "你好")
    turn = await eng.turn(inc)
    question = {"person_id": turn.person_id, "account": inc.account, "trace_id": inc.trace_id}
    await eng.storage.messages.add(inc.chat_key, "user", inc.text, **question)
    fake_llm.push(Hang(0.3, Reply(text=profile_json(addressing="先生"))))
    await eng.memory.context.after_reply(turn, "子曰：善。")
    assert eng.memory.context.pending >= 1  # returned while the extraction still runs
    assert await eng.memory.profiles.get(turn.person_id) == {}
    await eng.memory.context.drain(10)
    assert eng.memory.context.pending == 0
    assert (await eng.memory.profiles.get(turn.person_id))["addressing"] == "先生"


BATCHED = MemoryConfig(window_rounds=2, summary_fold_rounds=4)


def profile_requests(fake) -> list[str]:
    return [r["messages"][-1]["content"] for r in requests_of(fake, "profile")]


async def test_a_batch_of_four_exchanges_is_one_request_with_all_four(make_engine, script, fake_llm):
    eng = make_engine(config=BATCHED)
    script.profiles += [profile_json(interests=["诗"]), profile_json(level="beginner")]
    for n in range(1, 4):
        await eng.say(dm("a", f"第{n}问"))
    assert profile_requests(fake_llm) == []  # three exchanges: nothing asked yet
    await eng.say(dm("a", "第4问"))
    (sent,) = profile_requests(fake_llm)
    assert all(f"第{n}问" in sent for n in range(1, 5)) and sent.count("助手：子曰：善。") == 4
    for n in range(5, 9):
        await eng.say(dm("a", f"第{n}问"))
    first, second = profile_requests(fake_llm)
    assert all(f"第{n}问" in second for n in range(5, 9)) and "第4问" not in second
    turn = await eng.turn(dm("a"))
    assert await eng.memory.profiles.get(turn.person_id) == {"interests": ["诗"], "level": "beginner"}


async def test_a_persons_exchanges_in_two_chats_go_into_one_batch(make_engine, script, fake_llm):
    eng = make_engine(config=BATCHED)
    await eng.say(dm("a", "私下一问"))
    await eng.say(group("a", "群里一问"))
    await eng.say(group("b", "别人的话"))
    await eng.say(dm("a", "私下二问"))
    assert profile_requests(fake_llm) == []
    await eng.say(group("a", "群里二问"))
    (sent,) = profile_requests(fake_llm)
    assert all(t in sent for t in ("私下一问", "群里一问", "私下二问", "群里二问")) and "别人的话" not in sent
    assert sent.index("私下一问") < sent.index("群里一问") < sent.index("私下二问")  # in the order they were asked


async def test_exchanges_waiting_when_accounts_are_linked_go_into_the_joined_persons_batch(
    make_engine, script, fake_llm
):
    eng = make_engine(config=BATCHED)
    tg, dc = dm("a", platform="telegram"), dm("x", platform="discord")
    for n in range(1, 6):
        await eng.say(dm("a", f"第{n}问"))  # 1–4 extracted, 5 waits
    await eng.say(dm("x", "甲问", platform="discord"))
    await eng.say(dm("x", "乙问", platform="discord"))  # the other account's two wait too
    assert len(profile_requests(fake_llm)) == 1
    code = (await eng.command(tg, "link")).extra["code"]
    assert (await eng.command(dc, "link", code)).extra["status"] == "linked"
    await eng.say(dm("x", "第6问", platform="discord"))
    last = profile_requests(fake_llm)[-1]
    assert len(profile_requests(fake_llm)) == 2 and "第4问" not in last
    assert all(t in last for t in ("第5问", "甲问", "乙问", "第6问"))
    person = (await eng.turn(tg)).person_id
    asked = [m.text for m in await eng.storage.messages.by_person(person, 10)]
    assert asked == [*(f"第{n}问" for n in range(1, 6)), "甲问", "乙问", "第6问"]  # one history


async def test_two_turns_that_read_the_same_batch_send_it_once(make_engine, script, fake_llm):
    eng = make_engine(config=BATCHED)
    for n in range(1, 3):
        await eng.say(dm("a", f"第{n}问"))
    turns = [await eng.turn(inc) for inc in (dm("a", "私下再问"), group("a", "群里再问"))]
    for turn in turns:  # asked at once in two chats: both turns read the same 4 waiting
        inc = turn.incoming
        await eng.storage.messages.add(inc.chat_key, "user", inc.text, person_id=turn.person_id, trace_id=inc.trace_id)
    for turn in turns:
        await eng.memory.context.build(turn, SYSTEM)
    for turn in turns:
        await eng.memory.context.after_reply(turn, f"答{turn.incoming.text}")
    await eng.memory.context.drain(10)
    (sent,) = profile_requests(fake_llm)  # the second waited for the first and found its batch taken
    assert all(t in sent for t in ("第1问", "第2问", "私下再问", "群里再问"))
    assert "答私下再问" in sent  # the turn's own reply, though its read came before it was stored


async def test_two_processes_on_one_database_extract_each_exchange_once(make_engine, script, fake_llm):
    one, two = make_engine(config=BATCHED), make_engine(config=BATCHED)
    for n in range(1, 4):
        await one.say(dm("a", f"第{n}问"))
    await two.say(dm("a", "第4问"))  # what waits is read from the store, whoever asked before
    (sent,) = profile_requests(fake_llm)
    assert all(f"第{n}问" in sent for n in range(1, 5))
    for n in range(5, 8):
        await two.say(dm("a", f"第{n}问"))
    inc = dm("a", "第8问")
    turn = await one.turn(inc)
    await one.storage.messages.add(inc.chat_key, "user", inc.text, person_id=turn.person_id, trace_id=inc.trace_id)
    await one.storage.messages.add(inc.chat_key, "assistant", "善。", trace_id=inc.trace_id)
    fake_llm.push(Hang(0.3, Reply(text=profile_json(interests=["甲"]))))
    fake_llm.push(Hang(0.3, Reply(text=profile_json(interests=["乙"]))))
    for eng in (one, two, one):  # both processes (one of them twice) see the batch due at once
        await eng.memory.context.after_reply(turn, "善。")
    await asyncio.gather(one.memory.context.drain(10), two.memory.context.drain(10))
    batches = profile_requests(fake_llm)[1:]
    assert len(batches) == 2  # one per process: the second turn in `one` waited and found it taken
    assert all(all(f"第{n}问" in b for n in range(5, 9)) and "第4问" not in b for b in batches)
    interests = (await one.memory.profiles.get(turn.person_id))["interests"]
    assert interests in (["甲"], ["乙"])  # only the batch stored first counts; the other is dropped
    for n in range(9, 13):
        await two.say(dm("a", f"第{n}问"))
    last = profile_requests(fake_llm)[-1]
    assert len(profile_requests(fake_llm)) == 4 and "第8问" not in last and "第9问" in last and "第12问" in last


async def test_a_process_stopped_mid_extraction_leaves_its_batch_for_the_next(make_engine, script, fake_llm):
    one, two = make_engine(config=BATCHED), make_engine(config=BATCHED)
    for n in range(1, 4):
        await one.say(dm("a", f"第{n}问"))
    fake_llm.push(Hang(5, Reply(text=profile_json(level="advanced"))))
    inc = dm("a", "第4问")
    turn = await one.turn(inc)
    await one.storage.messages.add(inc.chat_key, "user", inc.text, person_id=turn.person_id, trace_id=inc.trace_id)
    await one.memory.context.after_reply(turn, "善。")
    await one.memory.context.drain(0.2)  # the process stops: its extraction is cut off unwritten
    script.profiles.append(profile_json(level="beginner"))
    await two.say(dm("a", "第5问"))
    sent = profile_requests(fake_llm)[-1]
    assert all(f"第{n}问" in sent for n in range(1, 6))
    assert await two.memory.profiles.get(turn.person_id) == {"level": "beginner"}


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
