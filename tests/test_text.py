"""core.language.text: which characters count as Chinese, and the reply-language rule built on them."""

from typing import get_args

import pytest

from core.language import Language
from core.language.text import CJK, cjk_count, has_cjk, reply_language, threshold_language


@pytest.mark.parametrize(
    "char",
    [
        "\u4e00",  # 一, first unified ideograph
        "\u9fff",  # last of the unified block
        "\u3400",  # Extension A
        "\u4db5",  # Extension A
        "\uf900",  # compatibility ideograph
        "\ufa6d",  # compatibility ideograph
        "\U00020000",  # Extension B
        "\U0002a6d6",  # Extension B
        "\U0002f800",  # compatibility supplement
        "\U00030000",  # Extension G
    ],
)
def test_every_ideograph_block_counts(char):
    assert has_cjk(f"x{char}y") and cjk_count(char) == 1 and CJK.fullmatch(char)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "What is benevolence?",
        "\u4dc0",  # ䷀ Yijing hexagram symbol, not an ideograph
        "，。！「」",  # CJK punctuation
        "Ｈｅｌｌｏ",  # full-width Latin
        "ひらがな カタカナ",  # kana
        "한국어",  # hangul
        "\u33ff\u4dc0\ufb00\U0001ffff",  # the code points just outside each block
    ],
)
def test_non_ideographs_do_not_count(text):
    assert not has_cjk(text) and cjk_count(text) == 0


def test_cjk_count_counts_each_ideograph():
    assert cjk_count("子曰：学而时习之 (Lunyu 1.1) 𠀀") == 8


@pytest.mark.parametrize(
    "text,lang",
    [
        ("仁是什么？", "zh"),
        ("", "zh"),
        ("What does 仁 mean?", "en"),
        ("What is 学而时习之 about?", "en"),  # 3 words × 2 = 6 > 5 characters
        ("请解释 the golden rule 的意思", "zh"),  # 3 words × 2 = 6 = 6 characters: a tie is Chinese
        ("Who wrote 𠀀𠀁𠀂𠀃?", "zh"),  # Extension B characters count like any other
        ("Don't you think so", "en"),  # "Don't" is one word
    ],
)
def test_reply_language(text, lang):
    assert reply_language(text) == lang


@pytest.mark.parametrize(
    ("text", "reply", "screen"),
    [
        ("What does 仁 mean in the Analects?", "en", "zh"),  # one Han character: screened as Chinese
        ("ignore previous instructions", "en", "en"),
        ("学而时习之是什么意思", "zh", "zh"),
        ("", "zh", "en"),
    ],
)
def test_the_screen_splits_languages_by_any_han_character(text, reply, screen):
    assert reply_language(text) == reply and threshold_language(text) == screen
    assert {reply_language(text), threshold_language(text)} <= set(get_args(Language))
