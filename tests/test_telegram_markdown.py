"""Markdown → Telegram HTML: correct escaping, balanced tags, visible text preserved."""

from __future__ import annotations

import random

import pytest

from adapters.telegram.markdown import to_html, utf16_len
from tests.fakes.telegram_api import parse_html


@pytest.mark.parametrize(
    ("markdown", "html"),
    [
        ("**仁**者爱人", "<b>仁</b>者爱人"),
        ("*斜体* 与 _强调_", "<i>斜体</i> 与 <i>强调</i>"),
        ("a < b && c > d", "a &lt; b &amp;&amp; c &gt; d"),
        ("`x<y>` 代码", "<code>x&lt;y&gt;</code> 代码"),
        ("[论语](https://ctext.org/analects?a=1&b=2)", '<a href="https://ctext.org/analects?a=1&amp;b=2">论语</a>'),
        ("[坏链接](javascript:alert(1))", "[坏链接](javascript:alert(1))"),
        ("snake_case_name 不变", "snake_case_name 不变"),
        ("# 标题", "<b>标题</b>"),
        ("- 一\n- 二", "• 一\n• 二"),
        ("> 子曰\n> 学而", "<blockquote>子曰\n学而</blockquote>"),
        ("```py\nif a<b: pass\n```", '<pre><code class="language-py">if a&lt;b: pass</code></pre>'),
        ("[1] 《论语·八佾》第22章", "[1] 《论语·八佾》第22章"),
        ("~~删~~ ||剧透||", "<s>删</s> <tg-spoiler>剧透</tg-spoiler>"),
    ],
)
def test_conversions(markdown, html):
    assert to_html(markdown) == html


def test_crossing_emphasis_stays_balanced():
    html = to_html("**a _b** c_ and *x `y* z`")
    parse_html(html)  # the fake rejects exactly what Telegram rejects; this must not raise


@pytest.mark.parametrize("seed", range(30))
def test_random_markdown_always_parses_and_keeps_words(seed):
    rng = random.Random(seed)
    atoms = [
        "仁",
        "礼",
        "**",
        "*",
        "_",
        "__",
        "~~",
        "||",
        "`",
        "<",
        ">",
        "&",
        "[a](https://x.y)",
        "[b]",
        "(c)",
        "\n",
        "\n\n",
        "```",
        "```py\n",
        "> ",
        "# ",
        "- ",
        " ",
        "word",
        "&amp;",
        "<b>",
    ]
    text = "".join(rng.choice(atoms) for _ in range(rng.randint(5, 80)))
    visible = parse_html(to_html(text))
    for word in ("仁", "礼", "word"):
        assert visible.count(word) == text.count(word)


def test_utf16_length_counts_astral_characters_twice():
    assert utf16_len("仁") == 1 and utf16_len("𠀀") == 2


@pytest.mark.parametrize("seed", range(8))
def test_split_parts_of_long_markdown_each_parse_and_fit(seed):
    from adapters.common.split import split_text
    from adapters.telegram.sink import rendered_length
    from tests.fakes.telegram_api import utf16_len

    rng = random.Random(seed)
    blocks = []
    while sum(map(len, blocks)) < 12_000:
        kind = rng.random()
        if kind < 0.2:
            blocks.append(
                "```py\n" + "\n".join(f"a<{i}> & b  # **not bold**" for i in range(rng.randint(5, 200))) + "\n```"
            )
        elif kind < 0.4:
            blocks.append(
                "\n".join(f"- **要点{i}**：`x<y` 与 [链接](https://e.org/{i})" for i in range(rng.randint(1, 30)))
            )
        else:
            blocks.append("子曰：“*学*而时习之，不亦说乎？” " * rng.randint(1, 60))
    text = "\n\n".join(blocks)
    parts = split_text(text, 4096, rendered_length)
    assert len(parts) >= 3
    for part in parts:
        html = to_html(part)
        assert utf16_len(html) <= 4096
        parse_html(html)  # Telegram would accept it: tags balanced, entities escaped
