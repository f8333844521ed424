"""Traditional previews agree with the final: the text streamed so far is converted as a whole, up
to its last phrase boundary, so every preview is the start of the final answer (converted whole)."""

from __future__ import annotations

import json
import random

import pytest

from core.events import FinalReply, TextDelta, TextReset, ToolStep
from core.language.script import ScriptConverter
from core.llm.client import OpenAIChatClient
from core.llm.retry import RetryPolicy
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_corpus import corpus_dir
from tests.helpers_engine import collect, final_of, incoming, make_service, notices, sqlite_storage

CONVERTER = ScriptConverter()
ANSWER = "他的头发白了，理发之后，面容干净。"
"""头发 → 頭髮, 理发 → 理髮, 干净 → 乾淨 as phrases; 发 and 干 alone become 發 and 幹."""


def previews(events: list) -> list[str]:
    """What an adapter shows after each delta (appended; cleared at a reset)."""
    shown, out = "", []
    for event in events:
        if isinstance(event, TextReset):
            shown = ""
        elif isinstance(event, TextDelta):
            shown += event.text
            out.append(shown)
    return out


@pytest.mark.parametrize("chunk", [1, 2, 3])
async def test_every_streamed_preview_starts_the_final_answer(tmp_path, fake_llm, chunk):
    assert "".join(CONVERTER.traditional(c) for c in ANSWER) != CONVERTER.traditional(ANSWER)  # pieces differ
    llm = OpenAIChatClient(base_url=fake_llm.base_url, api_key="sk", model="m", retry=RetryPolicy(attempts=1))
    service = make_service(sqlite_storage(tmp_path), llm=llm)
    [done] = notices(await collect(service, incoming("script traditional", command="settings")))
    assert done.extra["settings"]["script"] == "traditional"
    fake_llm.stream_text(ANSWER, chunk=chunk)  # "头" and "发" (and "干", "净") arrive apart
    events = await collect(service, incoming("孔子的头发白了吗？"))
    final = final_of(events)
    assert final.text == "他的頭髮白了，理髮之後，面容乾淨。"
    shown = previews(events)
    assert shown == ["他的頭髮白了，", "他的頭髮白了，理髮之後，", final.text]  # clause by clause
    await llm.aclose()


def test_a_clause_is_held_back_until_its_boundary_and_a_reset_starts_over():
    view = CONVERTER.reply("traditional")
    assert view.events(TextDelta("头")) == []
    assert view.events(TextDelta("发白了")) == []
    assert view.events(TextDelta("，理")) == [TextDelta("頭髮白了，")]
    assert view.events(ToolStep("search_classics", "start")) == [ToolStep("search_classics", "start")]
    assert view.events(TextReset("tool_call")) == [TextReset("tool_call")]
    assert view.events(TextDelta("发展。")) == [TextDelta("發展。")]  # 发 after 理 was never shown
    [final] = view.events(FinalReply("发展。"))
    assert isinstance(final, FinalReply) and final.text == "發展。"


class ReachingBack(ScriptConverter):
    """A conversion where later text changes earlier characters across a boundary (甲 → 乙 once 丙 appears)."""

    def traditional(self, text: str) -> str:
        return text.replace("甲", "乙") if "丙" in text else text


def test_a_conversion_the_next_words_would_change_stops_the_previews_not_the_answer():
    view = ReachingBack().reply("traditional")
    assert view.events(TextDelta("丁，")) == [TextDelta("丁，")]
    assert view.events(TextDelta("甲，丙")) == []  # "甲，" alone is not how "甲，丙" converts
    assert view.events(TextDelta("，戊。")) == []  # and nothing more is shown for this reply
    [final] = view.events(FinalReply("丁，甲，丙，戊。"))
    assert isinstance(final, FinalReply) and final.text == "丁，乙，丙，戊。"


def test_previews_start_the_final_for_every_passage_of_the_analects_in_random_pieces():
    rng = random.Random(33)
    chapters = json.loads((corpus_dir() / "lunyu.json").read_text("utf-8"))
    passages = [p for chapter in chapters for p in chapter["paragraphs"]]
    for passage in passages:
        whole = CONVERTER.traditional(passage)
        view, shown, at = CONVERTER.reply("traditional"), "", 0
        while at < len(passage):
            size = rng.randint(1, 4)
            for event in view.events(TextDelta(passage[at : at + size])):
                assert isinstance(event, TextDelta)
                shown += event.text
            assert whole.startswith(shown), passage
            at += size
        if passage.endswith(("。", "！", "？", "”")):  # the last clause ended: all of it was shown
            assert shown == whole, passage
