"""split_text: limits (measured after escaping), order, no loss, balanced fences; footnotes."""

from __future__ import annotations

import html
import random
import re

import pytest

from adapters.common.render import compose, render_footnotes, truncate
from adapters.common.split import split_text, strip_fence_repairs
from core.events import Citation, FinalReply

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.M)


def balanced(part: str) -> bool:
    """Every fence line opened in the part is closed in the part."""
    open_marker = None
    for line in part.splitlines():
        m = FENCE.match(line)
        if not m:
            continue
        if open_marker is None:
            open_marker = m.group(1)
        elif line.strip() and set(line.strip()) == {open_marker[0]} and len(line.strip()) >= len(open_marker):
            open_marker = None
    return open_marker is None


def code_block(lang: str, lines: int) -> str:
    return f"```{lang}\n" + "\n".join(f"print({i})  # <{i}> & more" for i in range(lines)) + "\n```"


def test_short_text_is_one_part_and_blank_is_none():
    assert split_text("子曰：学而时习之。", 100) == ["子曰：学而时习之。"]
    assert split_text("  \n ", 100) == []


def test_prefers_paragraphs_then_lines_then_sentences():
    paras = ["甲" * 30, "乙" * 30, "丙" * 30]
    assert split_text("\n\n".join(paras), 70) == ["甲" * 30 + "\n\n" + "乙" * 30 + "\n\n", "丙" * 30]
    lines = "\n".join(["一" * 30, "二" * 30, "三" * 30])
    assert split_text(lines, 70)[0] == "一" * 30 + "\n" + "二" * 30 + "\n"
    sentences = "学而时习之。" * 20
    parts = split_text(sentences, 40)
    assert all(p.endswith("。") for p in parts)


def test_hard_split_when_no_boundary():
    parts = split_text("a" * 250, 100)
    assert [len(p) for p in parts] == [100, 100, 50]


def test_code_block_split_is_closed_and_reopened_with_info_string():
    text = "前言。\n\n" + code_block("python", 80) + "\n\n后记。"
    parts = split_text(text, 500)
    assert len(parts) > 2
    assert all(balanced(p) for p in parts)
    inner = [p for p in parts[1:] if p.startswith("```python\n")]
    assert len(inner) >= 2  # reopened with the same info string
    assert strip_fence_repairs(parts, text) == text


def test_limit_measured_after_escaping():
    text = "\n".join("<tag> & <other> " * 3 for _ in range(60))
    measure = lambda s: len(html.escape(s, quote=False))  # noqa: E731
    parts = split_text(text, 300, measure)
    assert all(measure(p) <= 300 for p in parts)
    assert any(len(p) < 300 for p in parts) and "".join(parts) == text


def test_tilde_fences_and_unclosed_block():
    text = "~~~~text\n" + "line\n" * 100 + "~~~~\n\n```\nopen block never closed\n" + "x\n" * 80
    parts = split_text(text, 120)
    assert all(balanced(p) for p in parts)
    assert parts[-1].endswith("```")  # the unclosed block is closed in the last part
    assert strip_fence_repairs(parts, text) == text


@pytest.mark.parametrize("seed", range(12))
def test_random_texts_keep_order_limits_and_content(seed):
    rng = random.Random(seed)
    pieces = []
    for _ in range(rng.randint(5, 40)):
        kind = rng.random()
        if kind < 0.2:
            pieces.append(code_block(rng.choice(["", "py", "js title"]), rng.randint(1, 60)))
        elif kind < 0.3:
            pieces.append("x" * rng.randint(100, 900))
        else:
            pieces.append("。".join("子曰" * rng.randint(1, 40) for _ in range(rng.randint(1, 8))))
    text = rng.choice(["\n\n", "\n"]).join(pieces)
    limit = rng.choice([120, 400, 4096])
    measure = lambda s: len(html.escape(s, quote=False)) + s.count("`")  # noqa: E731
    parts = split_text(text, limit, measure)
    assert all(measure(p) <= limit for p in parts)
    assert all(balanced(p) for p in parts)
    assert strip_fence_repairs(parts, text) == text


def test_strip_fence_repairs_detects_loss():
    text = "\n\n".join("段" * 50 for _ in range(5))
    parts = split_text(text, 120)
    with pytest.raises(ValueError):
        strip_fence_repairs(parts[:-1], text)


def test_footnotes_and_compose():
    cites = (Citation(2, "shijing:1", "《诗经·关雎》"), Citation(1, "lunyu:3.22", "《论语·八佾》第22章"))
    assert render_footnotes(cites) == "[1] 《论语·八佾》第22章\n[2] 《诗经·关雎》"
    assert compose(FinalReply("管仲之器小哉[1]。  ", cites)).endswith(
        "哉[1]。\n\n[1] 《论语·八佾》第22章\n[2] 《诗经·关雎》"
    )
    assert compose(FinalReply("无引文")) == "无引文"


def test_truncate_fits_measure():
    assert truncate("短", 10) == "短"
    cut = truncate("长" * 50, 20)
    assert len(cut) <= 20 and cut.endswith("…")
