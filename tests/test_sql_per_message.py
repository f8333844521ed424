"""What one ordinary message costs in SQL statements, counted on SQLite and PostgreSQL through the real ChatService.

A Telegram DM answered by the agent (one `search_classics` call, then a cited answer from the fake
OpenAI endpoint), with the real memory (window, summary, facts, profile) and the bookkeeping a
Telegram adapter adds (`record_shown` as the first message exists, `record_delivery` once sent).
Every statement the database driver is handed counts (`before_cursor_execute`), the background
memory work after the reply included. The figures are docs/deploy.md's ("SQL per message"); a change
that adds a statement to every message fails here: look at the shapes it prints, then either cut the
statement or raise the figure and say why in docs/deploy.md.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import event

from adapters.common.lifecycle import report_delivery
from bot.recite import build_recitation
from core.agent import Agent
from core.engine.commands import CommandRouter
from core.events import Citation, FinalReply
from core.llm.client import OpenAIChatClient
from core.llm.retry import RetryPolicy
from core.memory import MemoryConfig, build_memory, register_memory
from core.retrieval.documents import load_corpus
from core.shown_in import ShownIn
from core.storage import Storage, open_database
from core.tools.classics import search_classics_tool
from core.tools.toolset import Toolset
from core.types import Incoming
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_corpus import corpus_dir
from tests.helpers_db import database_url, postgres_url  # noqa: F401
from tests.helpers_engine import CorpusRetriever, collect, make_service, sqlite_storage
from tests.test_memory_fixtures import HashEmbedder, kind

FIRST_MESSAGE = 11
"""A person's first message in a new chat: person, account and chat are created (the profile waits
for its batch of exchanges: core/memory/profile.py)."""
LATER_MESSAGE = 8
"""A later message, the chat's settings no longer cached (a person writing again after 5 s or more)."""
QUICK_MESSAGE = 8
"""A message within the settings cache's 5 s (SETTINGS_CACHE_S) of the last one in the same chat (a
message reads its chat's settings with its person in one statement, cached or not: the same cost)."""


class Statements:
    """Counts the statements an engine runs (by shape: literals and parameters left out)."""

    def __init__(self, engine) -> None:
        self.seen: Counter[str] = Counter()
        event.listen(engine, "before_cursor_execute", self._count)

    def _count(self, conn, cursor, statement, parameters, context, executemany) -> None:
        self.seen[shape(statement)] += 1

    @contextmanager
    def counting(self) -> Iterator[Counter[str]]:
        self.seen = seen = Counter()
        try:
            yield seen
        finally:
            self.seen = Counter()  # what runs after the block is not counted in it


def shape(statement: str) -> str:
    text = re.sub(r"\s+", " ", statement).strip()
    text = re.sub(r"SELECT .*? FROM", "SELECT … FROM", text)
    return re.sub(r"\((\?|%\(\w+\)s)(, (\?|%\(\w+\)s))*\)", "(…)", text)[:120]


def report(seen: Counter[str]) -> str:
    return "\n".join(f"{n} × {s}" for s, n in seen.most_common())


def answer(body: dict):
    """The fake model: memory's summary/profile requests get defaults; a question gets one search,
    then an answer that cites the first passage found."""
    which = kind(body)
    if which == "summary":
        return "摘要"
    if which == "profile":
        return '{"language": "zh"}'
    if body["messages"][-1]["role"] == "tool":
        return "子曰：学而时习之，不亦说乎[1]。温故而知新，可以为师矣。"
    return [("search_classics", {"query": "学而时习之"})]


async def test_an_ordinary_message_costs_no_more_statements_than_docs_say(request, database_url, fake_llm):  # noqa: F811
    fake_llm.set_default(answer)
    storage = Storage(open_database(database_url))
    request.addfinalizer(storage.engine.dispose)
    llm = OpenAIChatClient(base_url=fake_llm.base_url, api_key="sk", model="m", retry=RetryPolicy(attempts=1))
    memory = build_memory(storage.engine, llm, HashEmbedder(), MemoryConfig())
    corpus = CorpusRetriever()
    agent = Agent(llm, Toolset([search_classics_tool(corpus)]), max_rounds=3)
    router = CommandRouter()
    service = make_service(storage, router=router, llm=llm, agent=agent, retriever=corpus, context=memory.context)
    register_memory(memory, router=router)
    build_recitation(storage, load_corpus(corpus_dir()), router=router, service=service, memory=memory, search=None)
    statements = Statements(storage.engine)

    async def message(n: int) -> Counter[str]:
        incoming = Incoming(platform="telegram", user_id="42", chat_id="42", text="何为学？", user_name="颜回")
        with statements.counting() as seen:
            events = await collect(service, incoming)  # as the adapter streams it …
            await service.record_shown(incoming.trace_id, ShownIn("telegram", "42", 100 + n))  # … (first message)
            await report_delivery(service, incoming.trace_id, True)  # … and once the final text is sent
            await service.aclose()
            await memory.aclose()  # the memory work in the background (summary, profile), drained
        final = next(e for e in events if isinstance(e, FinalReply))
        assert final.level == 0 and [c.n for c in final.citations] == [1], events
        return seen

    first = await message(1)
    storage.settings.forget_cached()  # as 5 s later
    later = await message(2)
    quick = await message(3)
    rows = await storage.messages.recent("telegram:42", 10)
    assert [(r.role, r.status) for r in rows] == [("user", "ok"), ("assistant", "ok")] * 3
    assert sum(first.values()) <= FIRST_MESSAGE, report(first)
    assert sum(later.values()) <= LATER_MESSAGE, report(later)
    assert sum(quick.values()) <= QUICK_MESSAGE, report(quick)


async def test_a_chat_seen_within_the_cache_costs_no_statement_and_changes_here_are_seen_at_once(tmp_path):
    storage = sqlite_storage(tmp_path)
    statements = Statements(storage.engine)
    with statements.counting() as seen:
        chat = await storage.settings.ensure("telegram:-5", "telegram", True)  # first sight: the row is made
    assert chat.is_group and chat.skill is None and (await storage.settings.fresh("telegram:-5")).skill is None
    assert sum(seen.values()) == 3, report(seen)
    with statements.counting() as seen:
        assert (await storage.settings.ensure("telegram:-5", "telegram", True)).is_group
        assert (await storage.settings.get("telegram:-5")).is_group
    assert sum(seen.values()) == 0, report(seen)
    await storage.chats.set_skill("telegram:-5", "poetry")  # /skill without /settings: forgets the cache
    with statements.counting() as seen:
        assert (await storage.settings.ensure("telegram:-5", "telegram", True)).skill == "poetry"
    assert sum(seen.values()) == 1, report(seen)  # the chat joined with its settings row


async def test_a_chat_read_before_it_existed_is_still_created_and_a_deleted_one_comes_back(tmp_path):
    storage = sqlite_storage(tmp_path)
    assert (await storage.settings.get("web:ann/a")).skill is None  # cached, but the chat has no row yet
    await storage.settings.ensure("web:ann/a", "web", False)
    assert await storage.chats.claim_no_llm_notice("web:ann/a") is True
    assert await storage.chats.claim_no_llm_notice("web:ann/a") is False
    await storage.chatlog.delete("web:ann/a")  # the web's DELETE: the row goes, and so does what was cached
    await storage.settings.ensure("web:ann/a", "web", False)
    assert (await storage.settings.fresh("web:ann/a")).skill is None  # the row is there again …
    assert await storage.chats.claim_no_llm_notice("web:ann/a") is True  # … with its notice not yet shown


async def test_the_no_llm_notice_is_asked_for_once_per_chat_and_process(tmp_path):
    storage = sqlite_storage(tmp_path)
    other = Storage(storage.engine)  # another process on the same database
    await storage.settings.ensure("console:a", "console", False)
    assert await other.chats.claim_no_llm_notice("console:b") is False  # no such chat: nothing is remembered
    await other.settings.ensure("console:b", "console", False)
    assert await other.chats.claim_no_llm_notice("console:b") is True
    statements = Statements(storage.engine)
    with statements.counting() as seen:
        assert await storage.chats.claim_no_llm_notice("console:a") is True
        assert await other.chats.claim_no_llm_notice("console:a") is False  # taken by the first
        assert [await s.chats.claim_no_llm_notice("console:a") for s in (storage, other)] == [False, False]
    assert sum(seen.values()) == 3, report(seen)  # the claim, the other's claim and its look at the row


async def test_finish_footnotes_and_the_chat_look_up_on_both_backends(database_url):  # noqa: F811
    storage = Storage(open_database(database_url))
    try:
        chat = await storage.settings.ensure("telegram:-7", "telegram", True)
        assert chat.is_group and (await storage.settings.fresh("telegram:-7")).is_group
        await storage.settings.change("telegram:-7", "script", "traditional", account="telegram:1", is_group=True)
        assert (await storage.settings.ensure("telegram:-7", "telegram", True)).script == "traditional"
        await storage.messages.add("telegram:-7", "user", "问", trace_id="t1", reply=True)
        first = [Citation(1, "lunyu:3.22", "《论语·八佾》第22章", "管仲之器小哉")]
        row = await storage.replies.finish("telegram:-7", "t1", "器小。[1]", 0, "streaming", first)
        again = [Citation(1, "lunyu:1.1", "《论语·学而》第1章", "学而时习之")]
        assert await storage.replies.finish("telegram:-7", "t1", "学。[1]", 0, "streaming", again) == row
        assert await storage.citations.of(["t1"]) == {"t1": [{"n": 1, "id": "lunyu:1.1", "ref": "《论语·学而》第1章"}]}
        await storage.replies.close_interrupted()  # a sweep took it for dead meanwhile: revived with its question
        assert await storage.replies.finish("telegram:-7", "t1", "学而。[1]", 0, "ok", again) == row
        rows = await storage.messages.recent("telegram:-7", 5)
        assert [(r.role, r.status, r.text) for r in rows] == [
            ("user", "ok", "问"),
            ("assistant", "ok", "学而。[1]"),
        ]
    finally:
        storage.engine.dispose()
