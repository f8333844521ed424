"""Long chapters cut into segments with renderings of their own (core/retrieval/segments.py)."""

from __future__ import annotations

from core.language.text import cjk_count
from core.retrieval.documents import load_corpus
from core.retrieval.glosses import load_stanzas, stanza_chars
from core.retrieval.segments import LONG_CHARS, SEGMENT_CHARS, TAIL_CHARS, parts, segments, sentences


def test_sentences_keep_their_closing_marks_and_quotes():
    text = "孟子曰：“宋人有闵其苗之不长而揠之者。”公孙丑曰：“何谓也？”\n曰：“然。”"
    assert sentences(text) == ["孟子曰：“宋人有闵其苗之不长而揠之者。”", "公孙丑曰：“何谓也？”", "曰：“然。”"]
    assert "".join(sentences(text)) == text.replace("\n", "")


def test_a_long_chapter_is_cut_at_sentence_ends_and_a_short_one_is_whole():
    short = "子曰：“学而时习之，不亦说乎？”"
    assert segments(short) == [short] and parts("lunyu", short) == [short]
    sentence = "王曰：“" + "吾" * 30 + "。”"  # 32 CJK characters
    long = sentence * 8  # 256 characters: two segments of 128
    cut = segments(long)
    assert cjk_count(long) >= LONG_CHARS and "".join(cut) == long
    assert all(cjk_count(s) >= SEGMENT_CHARS for s in cut[:-1]) and all(s.endswith("。”") for s in cut)
    tail = long + "王曰：“然。”"  # a 4-character tail joins the last segment
    assert len(segments(tail)) == len(cut) and segments(tail)[-1].endswith("王曰：“然。”")
    assert cjk_count("王曰：“然。”") < TAIL_CHARS
    poem = "关关雎鸠，在河之洲。\n参差荇菜，左右流之。"
    assert parts("shijing", poem) == ["关关雎鸠，在河之洲。", "参差荇菜，左右流之。"]


def test_every_segment_of_every_long_chapter_has_one_rendering(corpus_dir):
    prose = {p.id: p for p in load_corpus(corpus_dir) if p.corpus != "shijing"}
    rendered = {pid: rows for pid, rows in load_stanzas().items() if pid in prose}
    expected = {
        (pid, n) for pid, p in prose.items() if len(cut := segments(p.text)) > 1 for n in range(1, len(cut) + 1)
    }
    assert {(pid, g.stanza) for pid, rows in rendered.items() for g in rows} == expected
    assert len(expected) > 150  # the Mencius's long chapters above all
    assert all(stanza_chars(prose[pid], g.stanza) >= TAIL_CHARS for pid, rows in rendered.items() for g in rows)
