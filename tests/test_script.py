"""Traditional script: detection, conversion with OpenCC, and answers in the reader's script."""

from __future__ import annotations

from core.events import Citation, FinalReply, TextDelta
from core.language.script import ScriptConverter
from core.types import Incoming
from tests.helpers_engine import CorpusRetriever, collect, final_of, incoming, make_service, notices, sqlite_storage

CONVERTER = ScriptConverter()


def test_detects_clearly_traditional_text_only():
    assert CONVERTER.is_traditional("學而時習之，不亦說乎？這是什麼意思")
    assert CONVERTER.is_traditional("這")  # one Traditional-only character in a very short message
    for text in ("学而时习之，不亦说乎", "你好", "hello", "", "仁者爱人 學", "12345"):
        assert not CONVERTER.is_traditional(text), text


def test_a_simplified_reader_never_loads_the_traditional_dictionaries():
    """`s2t` (70–80 ms to load) waits for the first Traditional text: a message with no
    Traditional-only character is Simplified without it."""
    scripts = ScriptConverter()
    assert scripts.reply_script(None, "巧言令色") == "simplified" and "_s2t" not in vars(scripts)
    assert scripts.reply_script(None, "學而時習之") == "traditional" and "_s2t" in vars(scripts)


def test_phrase_level_conversion_and_citation_ids_kept():
    assert CONVERTER.traditional("头发") == "頭髮"  # phrase-level: 发 → 髮 here, not 發
    assert CONVERTER.traditional("发展") == "發展"
    cite = CONVERTER.citation(Citation(1, "lunyu:1.1", "《论语·学而》第1章", "学而时习之"))
    assert (cite.id, cite.ref, cite.text) == ("lunyu:1.1", "《論語·學而》第1章", "學而時習之")
    [final] = CONVERTER.reply("traditional").events(
        FinalReply("学而时习之[1]", (Citation(1, "lunyu:1.1", "《论语·学而》第1章"),))
    )
    assert isinstance(final, FinalReply)
    assert final.text == "學而時習之[1]" and final.citations[0].id == "lunyu:1.1"
    assert CONVERTER.reply("simplified").events(TextDelta("学习")) == [TextDelta("学习")]


async def test_answers_follow_the_setting_or_the_persons_script(tmp_path):
    service = make_service(sqlite_storage(tmp_path), retriever=CorpusRetriever())  # no LLM: L2 answers
    simplified = final_of(await collect(service, incoming("学而时习之", chat="s")))
    assert "学而时习之" in simplified.text  # simplified in, simplified out
    traditional = final_of(await collect(service, incoming("學而時習之，何解？", chat="t")))
    assert "學而時習之" in traditional.text and "学" not in traditional.text
    assert any(c.id == "lunyu:1.1" for c in traditional.citations)
    assert all("論語" in c.ref or "詩經" in c.ref for c in traditional.citations)

    [done] = notices(await collect(service, incoming("script traditional", command="settings", chat="g")))
    assert done.extra["settings"]["script"] == "traditional"
    chosen = final_of(await collect(service, incoming("学而时习之", chat="g")))  # the chat chose Traditional
    assert "學而時習之" in chosen.text
    await collect(service, incoming("script simplified", command="settings", chat="g"))
    forced = final_of(await collect(service, Incoming("console", "alice", "g", "學而時習之")))
    assert "学而时习之" in forced.text  # an explicit Simplified setting wins over the person's script
