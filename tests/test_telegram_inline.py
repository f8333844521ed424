"""Telegram inline mode through the real PTB and the real engine's look-ups (retrieval only)."""

from __future__ import annotations

import pytest_asyncio

from core.engine.lookup import HINT, SLOW_DOWN
from tests.fakes.telegram_api import FakeTelegram
from tests.helpers_engine import CorpusRetriever, make_service, sqlite_storage
from tests.helpers_telegram import running_bot


async def answered(tg, count: int) -> list[dict]:
    await tg.wait_for(lambda: len(tg.inline_answers) >= count, timeout=20)
    return tg.inline_answers[count - 1]["results"]


async def test_inline_passages_hints_script_and_limits(tmp_path, tg):
    service = make_service(sqlite_storage(tmp_path), retriever=CorpusRetriever())  # no LLM at all
    async with running_bot(tg, service):
        tg.inline("学而时习之", user_id=5)
        results = await answered(tg, 1)
        assert 1 <= len(results) <= 10 and results[0]["id"] == "lunyu:1.1"
        first = results[0]
        assert first["title"] == "《论语·学而》第1章" and first["input_message_content"]["message_text"].endswith(
            "—— 《论语·学而》第1章"
        )
        assert int(tg.inline_answers[0]["cache_time"]) == 300
        tg.inline("😀🙏", user_id=5)
        [hint] = await answered(tg, 2)
        assert hint["title"] == HINT
        tg.inline("", user_id=5)
        [hint] = await answered(tg, 3)
        assert hint["title"] == HINT
        tg.inline("學而時習之", user_id=6)
        results = await answered(tg, 4)
        assert results[0]["id"] == "lunyu:1.1" and results[0]["title"] == "《論語·學而》第1章"
        for i in range(25):  # one person typing far too fast
            tg.inline(f"仁{i}", user_id=7)
        await tg.wait_for(lambda: len(tg.inline_answers) >= 29, timeout=30)
        titles = [a["results"][0]["title"] for a in tg.inline_answers[4:29]]
        assert titles.count(SLOW_DOWN) >= 5
        tg.inline("关雎", user_id=8)  # someone else is not slowed down
        results = await answered(tg, 30)
        assert results[0]["title"] != SLOW_DOWN and any(r["id"] == "shijing:1" for r in results)
