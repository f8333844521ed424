"""One contract for every repository and memory/guard table, run on SQLite and a real PostgreSQL.

Includes what PostgreSQL rejects where SQLite does not (NUL, over-long strings) and concurrent
upserts of the same person or chat from two engines (two pools: as two processes would).
"""

from __future__ import annotations

import asyncio
import json

from sqlmodel import Session, select

from core.guards.usage import UsageStore
from core.memory.facts import FactStore
from core.memory.linking import AccountLinker
from core.memory.profile import ProfileStore
from core.memory.summary import ChatMemoryStore, ChatState
from core.storage import Account, Chat, Storage, create_database_engine, open_database
from tests.helpers_db import database_url, postgres_url  # noqa: F401
from tests.test_memory_fixtures import Clock, HashEmbedder


async def test_identities_chats_and_messages(database_url):
    storage = Storage(open_database(database_url))
    try:
        zilu = await storage.identities.resolve("telegram", "42", "Zilu")
        assert await storage.identities.resolve("telegram", "42", "Zhong You") == zilu
        other = await storage.identities.resolve("discord", "42", "Zilu")
        assert other != zilu and (await storage.identities.find("telegram", "42")).display_name == "Zhong You"
        assert await storage.identities.set_person("discord", "42", zilu) is True
        assert {a.platform for a in await storage.identities.accounts(zilu)} == {"telegram", "discord"}

        await storage.settings.ensure("telegram:42", "telegram", False)
        assert (await storage.settings.fresh("telegram:42")).skill is None
        await storage.chats.set_skill("telegram:42", "poetry")
        await storage.chats.set_skill("discord:new", "teaching")  # row created on demand
        assert (await storage.settings.fresh("telegram:42")).skill == "poetry"
        assert (await storage.settings.fresh("discord:new")).skill == "teaching"
        assert await storage.chats.claim_no_llm_notice("telegram:42") is True
        assert await storage.chats.claim_no_llm_notice("telegram:42") is False

        ids = [
            await storage.messages.add(
                "telegram:42",
                role,
                f"m{i}",
                person_id=zilu if role == "user" else None,
                status="ok" if i != 2 else "busy",
            )
            for i, role in enumerate(["user", "assistant", "user", "assistant"])
        ]
        assert ids == sorted(ids)
        assert [m.text for m in await storage.messages.recent("telegram:42", 3)] == ["m1", "m2", "m3"]
        assert [m.text for m in await storage.messages.recent("telegram:42", 10, statuses={"ok"})] == ["m0", "m1", "m3"]
        assert [
            m.text for m in await storage.messages.recent("telegram:42", 10, after_id=ids[0], before_id=ids[3])
        ] == ["m1", "m2"]
        assert await storage.messages.count("telegram:42", role="user") == 2
        assert [m.text for m in await storage.messages.by_person(zilu, 5)] == ["m0", "m2"]
        assert (await storage.messages.get(ids[1])).role == "assistant"
        assert await storage.messages.delete_chat("telegram:42") == 4
    finally:
        storage.engine.dispose()


async def test_nul_and_over_long_values_are_fitted_not_rejected(database_url):
    storage = Storage(open_database(database_url))
    try:
        person = await storage.identities.resolve("telegram", "7", "名" * 1000 + "\x00")
        account = await storage.identities.find("telegram", "7")
        assert account.display_name == "名" * 256
        mid = await storage.messages.add(
            "telegram:7", "user", "仁\x00者", person_id=person, speaker="x" * 999, trace_id="t" * 100, status="s" * 50
        )
        row = await storage.messages.get(mid)
        assert (
            row.text == "仁\ufffd者" and len(row.speaker) == 256 and len(row.trace_id) == 64 and len(row.status) == 32
        )
        await storage.chats.set_skill("telegram:7", "k" * 100)
        assert (await storage.settings.fresh("telegram:7")).skill == "k" * 64
    finally:
        storage.engine.dispose()


async def test_two_processes_upserting_the_same_person_and_chat(database_url):
    a, b = open_database(database_url), create_database_engine(database_url)  # b: a second pool, as another process
    sa, sb = Storage(a), Storage(b)
    usage_a, usage_b = UsageStore(a), UsageStore(b)
    profiles_a, profiles_b = ProfileStore(a), ProfileStore(b)
    try:
        people = await asyncio.gather(*(s.identities.resolve("telegram", "99", "Yan Hui") for s in [sa, sb] * 6))
        assert len(set(people)) == 1
        await asyncio.gather(*(s.settings.ensure("telegram:g", "telegram", True) for s in [sa, sb] * 6))
        await asyncio.gather(*(s.chats.set_skill("telegram:h", f"s{i}") for i, s in enumerate([sa, sb] * 4)))
        await asyncio.gather(*(u.add(people[0], 10, 5) for u in [usage_a, usage_b] * 10))
        await asyncio.gather(
            *(p.merge(people[0], {"interests": [f"topic{i}"]}) for i, p in enumerate([profiles_a, profiles_b] * 3))
        )
        with Session(a) as s:
            assert len(list(s.exec(select(Account)))) == 1
            assert {c.key for c in s.exec(select(Chat))} == {"telegram:g", "telegram:h"}
        figures = await usage_a.for_person(people[0])
        assert (figures.requests, figures.prompt_tokens, figures.completion_tokens) == (20, 200, 100)
        assert sorted((await profiles_b.get(people[0]))["interests"]) == sorted(f"topic{i}" for i in range(6))
    finally:
        a.dispose()
        b.dispose()


async def test_memory_tables_facts_summaries_and_link_codes(database_url):
    engine = open_database(database_url)
    try:
        facts = FactStore(engine, HashEmbedder())
        fact, created = await facts.add(
            1, "喜欢《诗经》\x00", is_group=False, account="telegram:1", chat_key="telegram:1"
        )
        assert created and fact.text == "喜欢《诗经》\ufffd"
        assert (await facts.add(1, "喜欢《诗经》\x00", is_group=False, account="telegram:1", chat_key="telegram:1"))[
            1
        ] is False
        assert [f.text for f in await facts.visible(1, in_group=False)] == [fact.text]

        chats = ChatMemoryStore(engine)
        assert chats.save_summary("telegram:1", "asked about ren", 3, ChatState()) is True
        assert chats.save_summary("telegram:1", "stale", 4, ChatState()) is False  # state moved on
        assert chats.reset("telegram:1", 5).summary == "asked about ren"
        assert chats.get("telegram:1") == ChatState("", 5, 5)

        clock = Clock()
        linker = AccountLinker(engine, ttl_s=60, max_failures=2, failure_window_s=600, clock=clock)
        storage = Storage(engine)
        tg = await storage.identities.resolve("telegram", "1")
        dc = await storage.identities.resolve("discord", "2")
        profiles = ProfileStore(engine)
        for person, chat, texts in ((tg, "telegram:1", "一二"), (dc, "discord:2", "三")):
            await profiles.merge(person, {"interests": list(texts)})
            for text in texts:
                await storage.messages.add(chat, "user", text, person_id=person, trace_id=f"t{text}")
        code = await linker.issue(tg, "telegram:1")
        assert (await linker.redeem(dc, "discord", "2", "000000" if code != "000000" else "111111")).status == "invalid"
        assert (await linker.redeem(dc, "discord", "2", code)).status == "linked"
        assert await storage.identities.resolve("discord", "2") == tg
        batch = profiles.batch(tg, 10)  # both accounts' waiting questions, one profile
        assert [e.question for e in batch.exchanges] == ["一", "二", "三"]
        assert sorted(json.loads(batch.stored)["interests"]) == ["一", "三", "二"]
        assert [m.text for m in await storage.messages.by_person(tg, 10)] == ["一", "二", "三"]
        late = await linker.issue(tg, "telegram:1")
        clock.advance(61)
        assert (await linker.redeem(dc, "discord", "2", late)).status == "invalid"
    finally:
        engine.dispose()
