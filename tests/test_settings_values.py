"""Parsing /settings values: the accepted daily time formats, zones, scripts and switches."""

from __future__ import annotations

from datetime import time

import pytest

from core.chatsettings.values import BadValue, parse_daily, parse_script, parse_switch, parse_time, parse_zone


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("8:00", time(8, 0)),
        ("08:00", time(8, 0)),
        ("20:30", time(20, 30)),
        ("0:00", time(0, 0)),
        ("23:59", time(23, 59)),
        ("8：05", time(8, 5)),  # full-width colon
        ("8:00 pm", time(20, 0)),
        ("8pm", time(20, 0)),
        ("8:30am", time(8, 30)),
        ("8 P.M.", time(20, 0)),
        ("12am", time(0, 0)),
        ("12pm", time(12, 0)),
        ("12:15 am", time(0, 15)),
        ("8点", time(8, 0)),
        ("8点半", time(8, 30)),
        ("8点30分", time(8, 30)),
        ("晚上8点", time(20, 0)),
        ("下午3点15", time(15, 15)),
        ("早上7點", time(7, 0)),
        ("中午12点", time(12, 0)),
        ("中午1点", time(13, 0)),
        ("20点", time(20, 0)),
    ],
)
def test_accepted_times(text, expected):
    assert parse_time(text) == expected


@pytest.mark.parametrize("text", ["25:00", "24:00", "8:60", "8", "13pm", "0am", "8:5", "eight", "", "8点61分", "-1:00"])
def test_refused_times_say_why_in_one_line(text):
    with pytest.raises(BadValue) as refused:
        parse_time(text)
    message = str(refused.value)
    assert "\n" not in message and "08:00" in message


def test_zones_any_case_utc_and_refusals():
    assert parse_zone("asia/taipei") == "Asia/Taipei"
    assert parse_zone("UTC") == "UTC" and parse_zone("utc") == "UTC"
    assert parse_zone("Europe/London") == "Europe/London"
    for bad in ("Mars/Olympus", "UTC+8", "localtime", "GMT+8x"):
        with pytest.raises(BadValue) as refused:
            parse_zone(bad)
        assert "Area/City" in str(refused.value) and "\n" not in str(refused.value)


def test_daily_with_and_without_zone():
    assert parse_daily("08:00", None) == (time(8), "Asia/Shanghai")  # the documented default
    assert parse_daily("08:00", "Europe/Paris") == (time(8), "Europe/Paris")  # the chat keeps its zone
    assert parse_daily("7:30 America/New_York", "Europe/Paris") == (time(7, 30), "America/New_York")
    assert parse_daily("8:00 pm", None) == (time(20), "Asia/Shanghai")
    assert parse_daily("8:00 pm asia/tokyo", None) == (time(20), "Asia/Tokyo")
    assert parse_daily("9:00 UTC", None) == (time(9), "UTC")
    assert parse_daily("off", "UTC") is None and parse_daily("关", None) is None
    with pytest.raises(BadValue, match="Area/City"):
        parse_daily("8:00 Mars/Base", None)
    with pytest.raises(BadValue, match="08:00"):
        parse_daily("25:00 UTC", None)
    with pytest.raises(BadValue):
        parse_daily("", None)


def test_script_and_switch_words():
    assert parse_script("Traditional") == "traditional" and parse_script("繁體") == "traditional"
    assert parse_script("简体") == "simplified" and parse_script("auto") is None
    with pytest.raises(BadValue):
        parse_script("cursive")
    assert parse_switch("ON", "digest") is True and parse_switch("关", "digest") is False
    with pytest.raises(BadValue):
        parse_switch("maybe", "digest")
