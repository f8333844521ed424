"""One statement reads a turn's memory (core/memory/reads.py); the first read of each message sees
what other processes wrote (core/storage/arrival.py); a profile batch's write is one compare-and-set.

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
            reads = read_turn(engine, "web:a/1", 1, limit=4, exclude_trace="now", unextracted_limit=9)
        assert sum(seen.values()) == 1, report(seen)
        assert (reads.state.window_start, reads.state.summary) == (2, "")
        shown = [(line.role, line.text) for line in reads.lines]
        assert shown == [("user", "问2"), ("assistant", "答2"), ("user", "问3"), ("assistant", "答3")]
        assert [f.text for f in reads.facts] == ["我住在曲阜", "群里说的"]
        assert all(f.embedding != "[]" and isinstance(f.created_at, datetime) for f in reads.facts)
        assert reads.profile and '"zh"' in reads.profile
        waiting = [(e.question, e.reply) for e in reads.unextracted.exchanges]  # none extracted yet, this one too
        assert waiting == [("问0", "答0"), ("问1", "答1"), ("问2", "答2"), ("问3", "答3"), ("此问", "")]
        assert reads.unextracted.stored == reads.profile and reads.unextracted.upto == 0
        in_group = read_turn(engine, "web:g", 1, limit=4, in_group=True)
        assert [f.text for f in in_group.facts] == ["群里说的"] and in_group.lines == []
        other = read_turn(engine, "web:b/1", 2, limit=4, exclude_trace="now", unextracted_limit=9)  # same shape
        assert (other.lines, other.facts, other.profile, other.unextracted.exchanges) == ([], [], "", [])
        nobody = read_turn(engine, "web:none", 99, limit=4)
        assert (nobody.state.summary, nobody.lines, nobody.facts, nobody.profile) == ("", [], [], "")
        assert nobody.unextracted.exchanges == []
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


async def test_a_batch_is_marked_extracted_in_one_statement_unless_another_process_wrote_first(database_url):  # noqa: F811
    engine = open_database(database_url)
    try:
        storage, profiles = Storage(engine), ProfileStore(engine)
        for n in range(3):
            await storage.messages.add("web:a/1", "user", f"问{n}", person_id=5, trace_id=f"t{n}", reply=True)
            await storage.replies.finish("web:a/1", f"t{n}", f"答{n}", 0, "streaming")
        await storage.messages.add("web:a/1", "user", "他人", person_id=6, trace_id="x")
        await storage.messages.add("web:a/1", "user", "太长", person_id=5, trace_id="y", status="too_long")
        batch = profiles.batch(5, 2)
        assert read_turn(engine, "web:a/1", 5, limit=4, unextracted_limit=2).unextracted == batch  # the turn's read
        assert (batch.stored, batch.upto) == ("", 0)
        assert [(e.question, e.reply) for e in batch.exchanges] == [("问0", "答0"), ("问1", "答1")]
        statements = Statements(engine)
        with statements.counting() as seen:
            assert await profiles.advance(5, batch, {"language": "zh"}) == {"language": "zh"}  # none read: inserted
        assert sum(seen.values()) == 1, report(seen)
        assert await profiles.advance(5, batch, {"language": "en"}) is None  # taken already: nothing written
        rest = profiles.batch(5, 10)
        assert (rest.upto, [e.question for e in rest.exchanges]) == (batch.exchanges[-1].question_id, ["问2"])
        with statements.counting() as seen:
            assert await profiles.advance(5, rest, {"level": "beginner"}) == {"language": "zh", "level": "beginner"}
        assert sum(seen.values()) == 1, report(seen)
        assert await profiles.advance(5, rest, {"level": "advanced"}) is None
        assert profiles.batch(5, 10).exchanges == []
        assert await profiles.get(5) == {"language": "zh", "level": "beginner"}
        reads = read_turn(engine, "web:a/1", 5, limit=4, unextracted_limit=4)
        assert reads.unextracted.exchanges == [] and json.loads(reads.profile)["level"] == "beginner"
    finally:
        engine.dispose()


async def test_a_profile_another_process_changed_after_the_read_is_merged_not_overwritten(database_url, fake_llm):  # noqa: F811
    engine = open_database(database_url)
    llm = OpenAIChatClient(base_url=fake_llm.base_url, api_key="sk", model="m", retry=RetryPolicy(attempts=1))
    try:
        storage, profiles = Storage(engine), ProfileStore(engine)
        profiler = ProfileExtractor(llm, load_prompt(default_prompt_dir(), "profile"), profiles, batch_exchanges=2)
        await profiles.merge(3, {"language": "zh"})
        for n in range(2):
            await storage.messages.add("web:b/1", "user", f"我是初学者{n}", person_id=3, trace_id=f"b{n}")
        batch = profiles.batch(3, 10)  # what the extraction read …
        await ProfileStore(engine).merge(3, {"addressing": "老师"})  # … before another process wrote
        assert await profiles.advance(3, batch, {"level": "beginner"}) is not None
        assert await profiles.get(3) == {"language": "zh", "addressing": "老师", "level": "beginner"}
        await storage.messages.add("web:b/1", "user", "再问", person_id=3, trace_id="b2")
        statements = Statements(engine)
        with statements.counting() as seen:  # one waits, the batch is two: nothing asked, nothing written
            assert await profiler.extract(3) == 0
        assert sum(seen.values()) == 2, report(seen)  # the row and the questions after its mark
        assert fake_llm.requests == []
        await storage.messages.add("web:b/1", "user", "又问", person_id=3, trace_id="b3")
        fake_llm.set_default(lambda body: '{"level": "intermediate"}')
        assert await profiler.extract(3) == 2
        sent = fake_llm.requests[0]["messages"][-1]["content"]
        assert "再问" in sent and "又问" in sent and "初学者" not in sent
        assert (await profiles.get(3))["level"] == "intermediate"
    finally:
        await llm.aclose()
        engine.dispose()
