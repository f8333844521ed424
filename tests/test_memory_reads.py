"""One statement reads a turn's memory (core/memory/reads.py); the first read of each message sees
what other processes wrote (core/storage/arrival.py); a profile write is one compare-and-set.

All on SQLite and PostgreSQL, with two `Storage` objects on one database standing for two processes.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from sqlmodel import Session

from core.llm.client import OpenAIChatClient
from core.llm.retry import RetryPolicy
from core.memory.facts import FactStore
from core.memory.profile import ProfileExtractor, ProfileStore
from core.memory.reads import read_turn
from core.memory.summary import ChatMemoryStore
from core.prompts import default_prompt_dir, load_prompt
from core.recite.models import ReciteOpen
from core.recite.store import ReciteStore
from core.storage import Storage, open_database
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_db import database_url, postgres_url  # noqa: F401
from tests.test_memory_fixtures import HashEmbedder
from tests.test_sql_per_message import Statements, report


async def test_one_statement_reads_state_window_facts_and_profile(database_url):  # noqa: F811
    engine = open_database(database_url)
    try:
        storage, facts = Storage(engine), FactStore(engine, HashEmbedder())
        for n in range(4):
            await storage.messages.add("web:a/1", "user", f"问{n}", person_id=1, account="web:a", trace_id=f"t{n}")
            await storage.messages.add("web:a/1", "assistant", f"答{n}", trace_id=f"t{n}")
        await storage.messages.add("web:a/1", "user", "此问", person_id=1, trace_id="now", reply=True)
        ChatMemoryStore(engine).reset("web:a/1", upto=2)  # /reset after the first question and answer
        await facts.add(1, "我住在曲阜", is_group=False, account="web:a", chat_key="web:a/1")
        await facts.add(1, "群里说的", is_group=True, account="web:a", chat_key="web:g")
        await ProfileStore(engine).merge(1, {"language": "zh"})
        statements = Statements(engine)
        with statements.counting() as seen:
            reads = read_turn(engine, "web:a/1", 1, limit=4, exclude_trace="now")
        assert sum(seen.values()) == 1, report(seen)
        assert (reads.state.window_start, reads.state.summary) == (2, "")
        shown = [(line.role, line.text) for line in reads.lines]
        assert shown == [("user", "问2"), ("assistant", "答2"), ("user", "问3"), ("assistant", "答3")]
        assert [f.text for f in reads.facts] == ["我住在曲阜", "群里说的"]
        assert all(f.embedding != "[]" and isinstance(f.created_at, datetime) for f in reads.facts)
        assert reads.profile and '"zh"' in reads.profile
        in_group = read_turn(engine, "web:g", 1, limit=4, in_group=True)
        assert [f.text for f in in_group.facts] == ["群里说的"] and in_group.lines == []
        nobody = read_turn(engine, "web:none", 99, limit=4)
        assert (nobody.state.summary, nobody.lines, nobody.facts, nobody.profile) == ("", [], [], "")
    finally:
        engine.dispose()


async def test_a_message_sees_a_link_a_setting_and_a_card_made_by_another_process(database_url):  # noqa: F811
    one, two = open_database(database_url), open_database(database_url)
    try:
        a, b = Storage(one), Storage(two)
        cards = ReciteStore(two)
        probe = cards.open_exists
        first = await a.arrivals.arrive("telegram", "7", "颜回", "telegram:7", False, awaited=probe)
        assert not first.awaited and first.chat.skill is None
        other = await b.identities.resolve("discord", "9", "颜回")
        assert await b.identities.set_person("telegram", "7", other)  # /link in the other process
        await b.chats.set_skill("telegram:7", "poetry")
        expires = datetime.now(UTC) + timedelta(minutes=5)
        with Session(two) as s:
            s.add(
                ReciteOpen(
                    chat_key="telegram:7", person_id=other, card_id=1, line="学而", phrase="时习", expires_at=expires
                )
            )
            s.commit()
        statements = Statements(one)
        with statements.counting() as seen:
            again = await a.arrivals.arrive("telegram", "7", "颜回", "telegram:7", False, awaited=probe)
        assert sum(seen.values()) == 1, report(seen)
        assert (again.person_id, again.chat.skill, again.awaited) == (other, "poetry", True)
        assert (await a.settings.get("telegram:7")).skill == "poetry"  # the cache took what was read
        renamed = await a.arrivals.arrive("telegram", "7", "子渊", "telegram:7", False)
        assert renamed.person_id == other and not renamed.awaited  # no probe: nothing is awaited
        assert (await a.identities.find("telegram", "7")).display_name == "子渊"
    finally:
        one.dispose()
        two.dispose()


async def test_a_profile_write_is_one_statement_unless_another_process_wrote_first(database_url):  # noqa: F811
    engine = open_database(database_url)
    try:
        profiles = ProfileStore(engine)
        statements = Statements(engine)
        with statements.counting() as seen:
            assert await profiles.replace(5, "", {"language": "zh"})  # none read: inserted
        assert sum(seen.values()) == 1, report(seen)
        stored = '{"language": "zh"}'
        assert await profiles.replace(5, stored, {"language": "zh", "level": "beginner"})
        assert not await profiles.replace(5, stored, {"language": "en"})  # what was read is gone: not written
        assert not await profiles.replace(5, "", {"language": "en"})  # a row appeared meanwhile: not written
        assert await profiles.get(5) == {"language": "zh", "level": "beginner"}
    finally:
        engine.dispose()


async def test_a_profile_another_process_changed_after_the_read_is_merged_not_overwritten(database_url, fake_llm):  # noqa: F811
    engine = open_database(database_url)
    llm = OpenAIChatClient(base_url=fake_llm.base_url, api_key="sk", model="m", retry=RetryPolicy(attempts=1))
    try:
        profiles = ProfileStore(engine)
        profiler = ProfileExtractor(llm, load_prompt(default_prompt_dir(), "profile"), profiles)
        await profiles.merge(3, {"language": "zh"})
        stored = '{"language": "zh"}'  # what the turn read …
        await ProfileStore(engine).merge(3, {"addressing": "老师"})  # … before another process wrote
        fake_llm.set_default(lambda body: '{"level": "beginner"}')
        assert await profiler.update(3, "我是初学者", "善。", stored=stored) is not None
        assert await profiles.get(3) == {"language": "zh", "addressing": "老师", "level": "beginner"}
        statements = Statements(engine)
        with statements.counting() as seen:  # the same again: nothing new, nothing written
            again = json.dumps(await profiles.get(3), ensure_ascii=False)
            assert await profiler.update(3, "我是初学者", "善。", stored=again) is None
        assert sum(seen.values()) == 1, report(seen)  # the read above only
    finally:
        await llm.aclose()
        engine.dispose()
