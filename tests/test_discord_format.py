"""Discord rendering: footnotes as subtext, previews within one message, final parts within 2000."""

from __future__ import annotations

from adapters.common.render import compose
from adapters.discord.sink import MESSAGE_LIMIT, fit_preview, footnotes_as_subtext, split_final
from core.events import Citation, FinalReply


def test_footnote_block_becomes_subtext():
    final = FinalReply(
        "君子不器[1]，和而不同[2]。",
        (Citation(1, "lunyu:2.12", "《论语·为政》第12章"), Citation(2, "lunyu:13.23", "《论语·子路》第23章")),
    )
    assert footnotes_as_subtext(compose(final)) == (
        "君子不器[1]，和而不同[2]。\n\n-# [1] 《论语·为政》第12章\n-# [2] 《论语·子路》第23章"
    )


def test_text_without_footnote_block_is_unchanged():
    for text in ("子曰：学而时习之。", "第一段。\n\n[1] 这是正文，不是脚注\n而这一行也不是", ""):
        assert footnotes_as_subtext(text) == text


def test_preview_fits_one_message_and_closes_open_fence():
    text = "看这段：\n```python\n" + "print('仁')\n" * 400
    preview = fit_preview(text)
    assert len(preview) <= MESSAGE_LIMIT
    assert preview.count("```") % 2 == 0 and preview.endswith("```")
    assert fit_preview("短句。") == "短句。"


def test_final_parts_fit_and_keep_code_fences_balanced():
    code = "```python\n" + "".join(f"x{i} = '仁者爱人'\n" for i in range(300)) + "```"
    text = "前言。\n\n" + code + "\n\n结语。"
    parts = split_final(text)
    assert len(parts) >= 3
    assert all(len(p) <= MESSAGE_LIMIT for p in parts)
    assert all(p.count("```") % 2 == 0 for p in parts)
    assert parts[0].startswith("前言。") and parts[-1].endswith("结语。")
