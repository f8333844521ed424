"""One person, several accounts: /link codes, sharing, /unlink, guessing limits."""

from __future__ import annotations

from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.test_memory_fixtures import (  # noqa: F401
    all_text,
    dm,
    group,
    make_engine,
    profile_json,
    script,
)

TG = dict(platform="telegram")
DC = dict(platform="discord")


async def link(eng, issuer, redeemer) -> str:
    code = (await eng.command(issuer, "link")).extra["code"]
    result = await eng.command(redeemer, "link", code)
    return result.extra["status"]


async def test_link_shares_facts_and_profile_and_unlink_separates(make_engine, script, fake_llm):
    eng = make_engine()
    tg, dc = dm("t1", **TG), dm("d1", **DC)
    await eng.command(tg, "remember", "我下周要考《论语》")
    await eng.command(dc, "remember", "我在 Discord 上用英文名 Kong")
    script.profiles.append(profile_json(addressing="老师", level="beginner"))
    await eng.say(dm("t1", "老师好", **TG))

    assert await link(eng, tg, dc) == "linked"
    t_person, d_person = (await eng.turn(tg)).person_id, (await eng.turn(dc)).person_id
    assert t_person == d_person
    messages, _ = await eng.say(dm("d1", "我下周有什么事？", **DC))
    text = all_text(messages)
    assert "我下周要考《论语》" in text and "Kong" in text
    assert "称呼: 老师" in messages[0]["content"]  # the profile is shared too
    assert sorted(await eng.memory.linker.accounts(t_person)) == ["discord:d1", "telegram:t1"]

    result = await eng.command(dc, "unlink")
    assert result.extra["status"] == "unlinked"
    assert (await eng.turn(dc)).person_id != (await eng.turn(tg)).person_id
    messages, _ = await eng.say(dm("d1", "我下周有什么事？", **DC))
    text = all_text(messages)
    assert "论语" not in text.replace("我下周有什么事？", "") and "称呼: 老师" not in text
    assert "Kong" in text  # the fact remembered from this account went with it
    messages, _ = await eng.say(dm("t1", "我下周有什么事？", **TG))
    assert "我下周要考《论语》" in all_text(messages) and "Kong" not in all_text(messages)
    assert (await eng.command(dc, "unlink")).extra["status"] == "not_linked"


async def test_code_is_single_use_and_expires(make_engine, script, fake_llm):
    eng = make_engine()
    tg, dc, other = dm("t1", **TG), dm("d1", **DC), dm("d2", **DC)
    code = (await eng.command(tg, "link")).extra["code"]
    assert len(code) == 6 and code.isdigit()
    assert (await eng.command(dc, "link", code)).extra["status"] == "linked"
    assert (await eng.command(other, "link", code)).extra["status"] == "invalid"  # used

    code = (await eng.command(tg, "link")).extra["code"]
    eng.clock.advance(601)
    assert (await eng.command(other, "link", code)).extra["status"] == "invalid"  # expired

    first = (await eng.command(tg, "link")).extra["code"]
    second = (await eng.command(tg, "link")).extra["code"]
    if first != second:
        assert (await eng.command(other, "link", first)).extra["status"] == "invalid"  # superseded
    assert (await eng.command(other, "link", second)).extra["status"] == "linked"


async def test_code_guessing_is_rate_limited(make_engine, script, fake_llm):
    eng = make_engine()
    tg, attacker = dm("t1", **TG), dm("x", **DC)
    code = (await eng.command(tg, "link")).extra["code"]
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    for _n in range(5):
        result = await eng.command(attacker, "link", wrong)
        assert result.extra["status"] == "invalid"
    assert "还可再试 0 次" in result.text
    blocked = await eng.command(attacker, "link", code)  # even the right code is refused now
    assert blocked.extra["status"] == "rate_limited" and "10 分钟" in blocked.text
    assert (await eng.turn(attacker)).person_id != (await eng.turn(tg)).person_id
    eng.clock.advance(300)
    code = (await eng.command(tg, "link")).extra["code"]
    assert (await eng.command(attacker, "link", code)).extra["status"] == "rate_limited"
    eng.clock.advance(301)  # the first failures leave the 10-minute window
    assert (await eng.command(attacker, "link", code)).extra["status"] == "linked"


async def test_link_refused_in_groups_and_same_person(make_engine, script, fake_llm):
    eng = make_engine()
    assert "私聊" in (await eng.command(group("t1"), "link")).text
    tg = dm("t1", **TG)
    code = (await eng.command(tg, "link")).extra["code"]
    assert (await eng.command(tg, "link", code)).extra["status"] == "same_person"
    assert (await eng.command(tg, "link", "abc")).extra["status"] == "invalid"


async def test_three_accounts_join_one_person_and_unlink_one_at_a_time(make_engine, script, fake_llm):
    eng = make_engine()
    tg, dc, con = dm("t1", **TG), dm("d1", **DC), dm("c1", platform="console")
    await eng.command(con, "remember", "我用终端")
    assert await link(eng, con, dc) == "linked"  # dc joins con
    assert await link(eng, dc, tg) == "linked"  # tg joins the same person through dc's code
    person = (await eng.turn(con)).person_id
    assert {(await eng.turn(x)).person_id for x in (tg, dc, con)} == {person}
    assert sorted(await eng.memory.linker.accounts(person)) == ["console:c1", "discord:d1", "telegram:t1"]
    assert (await eng.command(tg, "unlink")).extra["status"] == "unlinked"
    assert sorted(await eng.memory.linker.accounts(person)) == ["console:c1", "discord:d1"]
    assert "我用终端" in (await eng.command(dc, "memories")).text
    assert "我用终端" not in (await eng.command(tg, "memories")).text
