"""Everything memory keeps survives a restart: new engine objects over the same SQLite file."""

from __future__ import annotations

from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.test_memory_fixtures import (  # noqa: F401
    all_text,
    dm,
    group,
    make_engine,
    profile_json,
    requests_of,
    script,
)


async def test_summary_window_facts_profile_links_and_codes_survive_restart(make_engine, script, fake_llm):
    first = make_engine()
    tg, dc = dm("t1", platform="telegram"), dm("d1", platform="discord")
    script.summaries.append("S-before-restart")
    script.profiles.append(profile_json(addressing="夫子", interests=["周礼"]))
    await first.command(tg, "remember", "我下周要考《论语》")
    await first.command(group("t1"), "remember", "我是群主")
    for n in range(1, 4):
        await first.say(dm("t1", f"问题{n}号"))
    assert await first.command(dc, "link", (await first.command(tg, "link")).extra["code"])
    pending_code = (await first.command(dm("t9"), "link")).extra["code"]
    await first.close()

    second = make_engine(clock=first.clock)  # a new process: new engine, stores, client
    messages, _ = await second.say(dm("d1", "问题4号", platform="discord"))
    assert "我下周要考《论语》" in all_text(messages) and "我是群主" in all_text(messages)
    assert "称呼: 夫子" in messages[0]["content"] and "周礼" in messages[0]["content"]
    messages, _ = await second.say(dm("t1", "问题5号"))
    assert "S-before-restart" in messages[1]["content"]
    assert "问题2号" in all_text(messages[2:]) and "问题3号" in all_text(messages[2:])
    # the next fold sends only what overflowed since: round 2, with the stored summary
    last = requests_of(fake_llm, "summary")[-1]["messages"][-1]["content"]
    assert "S-before-restart" in last and "问题2号" in last and "问题1号" not in last
    listing = await second.command(dm("d1", platform="discord"), "memories")
    assert "1. 我下周要考《论语》" in listing.text
    assert (await second.command(dm("x", platform="discord"), "link", pending_code)).extra["status"] == "linked"
