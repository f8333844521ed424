"""Telegram Mini App init data: the published example validates; 1,000 forged, expired, user-swapped
and other-bot payloads do not (adapters/web/tma.py)."""

from __future__ import annotations

import json
import random
from urllib.parse import quote, urlencode

import pytest

from adapters.web.tma import MAX_INIT_DATA_CHARS, TMA_MAX_AGE_S, InitDataRefused, check_init_data, sign

# The example of @telegram-apps/init-data-node's documentation and init-data-python's README (two
# independent libraries agree on it): a real bot token and the init data Telegram signed with it.
EXAMPLE_TOKEN = "5768337691:AAH5YkoiEuPk8-FZa32hStHTqXiLPtAEhx8"
EXAMPLE = (
    "query_id=AAHdF6IQAAAAAN0XohDhrOrc"
    "&user=%7B%22id%22%3A279058397%2C%22first_name%22%3A%22Vladislav%22%2C%22last_name%22%3A%22Kibenko%22"
    "%2C%22username%22%3A%22vdkfrost%22%2C%22language_code%22%3A%22ru%22%2C%22is_premium%22%3Atrue%7D"
    "&auth_date=1662771648&hash=c501b71e775f74ce10e377dea85a7ea24ecd640b223ea86dfe453e0eaed2e2b2"
)
EXAMPLE_AT = 1662771648
TOKEN = "123456789:AAtestTOKENtestTOKENtestTOKENtest12"
OTHER_TOKEN = "987654321:AAotherBOTotherBOTotherBOTother123"


def init_data(user_id: int, auth_date: int, token: str = TOKEN, **extra: str) -> str:
    """What Telegram hands a Mini App: the fields URL-encoded, signed with the bot's token."""
    user = json.dumps({"id": user_id, "first_name": "子路", "username": "zilu"}, ensure_ascii=False)
    fields = {"query_id": "AAHdF6IQAAAAAN0XohDhrOrc", "user": user, "auth_date": str(auth_date), **extra}
    return urlencode({**fields, "hash": sign(fields, token)}, quote_via=quote)


def test_the_published_example_validates():
    user = check_init_data(EXAMPLE, EXAMPLE_TOKEN, now=EXAMPLE_AT + 60)
    assert (user.id, user.name, user.auth_date) == (279058397, "Vladislav Kibenko", EXAMPLE_AT)


def test_the_published_example_is_refused_when_old_or_for_another_bot():
    with pytest.raises(InitDataRefused, match="expired"):
        check_init_data(EXAMPLE, EXAMPLE_TOKEN, now=EXAMPLE_AT + TMA_MAX_AGE_S + 1)
    with pytest.raises(InitDataRefused, match="not signed"):
        check_init_data(EXAMPLE, OTHER_TOKEN, now=EXAMPLE_AT + 60)


def test_a_signed_payload_names_its_user_and_start_param():
    now = 1_800_000_000
    user = check_init_data(init_data(42, now - 5, start_param="lunyu-1_3", signature="abc"), TOKEN, now=now)
    assert (user.id, user.name, user.start_param) == (42, "子路", "lunyu-1_3")


def _swap_user(raw: str, rng: random.Random) -> str:
    """The same hash over another user (someone pasting a victim's id into their own init data)."""
    victim = quote(json.dumps({"id": rng.randrange(1, 2**40), "first_name": "颜回"}))
    return "&".join(f"user={victim}" if p.startswith("user=") else p for p in raw.split("&"))


def _forge(raw: str, rng: random.Random) -> str:
    """A hash made up, or one flipped hex digit of the real one."""
    head, _, digest = raw.rpartition("&hash=")
    if rng.random() < 0.5:
        return f"{head}&hash={rng.randbytes(32).hex()}"
    i = rng.randrange(64)
    flipped = "0" if digest[i] != "0" else "1"
    return f"{head}&hash={digest[:i]}{flipped}{digest[i + 1 :]}"


def test_a_thousand_bad_payloads_are_all_refused():
    rng = random.Random(37)
    now = 1_800_000_000
    kinds = {
        "forged": lambda: _forge(init_data(rng.randrange(1, 2**40), now - rng.randrange(0, 3600)), rng),
        "expired": lambda: init_data(rng.randrange(1, 2**40), now - TMA_MAX_AGE_S - rng.randrange(1, 10**6)),
        "swapped": lambda: _swap_user(init_data(rng.randrange(1, 2**40), now - rng.randrange(0, 3600)), rng),
        "other_bot": lambda: init_data(rng.randrange(1, 2**40), now - rng.randrange(0, 3600), token=OTHER_TOKEN),
    }
    accepted, refused = [], {kind: 0 for kind in kinds}
    for i in range(1000):
        kind = list(kinds)[i % 4]
        raw = kinds[kind]()
        try:
            accepted.append((kind, check_init_data(raw, TOKEN, now=now)))
        except InitDataRefused as exc:
            assert exc.status == 401
            refused[kind] += 1
    assert accepted == [] and refused == {kind: 250 for kind in kinds}


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "garbage",
        "hash=" + "0" * 64,
        "a=1&a=2&hash=" + "0" * 64,
        "user=%ZZ&hash=" + "0" * 64,
        "auth_date=1&hash=XYZ",
        "%FF%FE=1&hash=" + "0" * 64,
    ],
)
def test_malformed_payloads_are_refused(raw):
    with pytest.raises(InitDataRefused) as caught:
        check_init_data(raw, TOKEN, now=1_800_000_000)
    assert caught.value.status == 401


def test_huge_payloads_are_refused_unread():
    with pytest.raises(InitDataRefused) as caught:
        check_init_data("a=" + "x" * MAX_INIT_DATA_CHARS, TOKEN)
    assert caught.value.status == 400


def test_a_signed_payload_without_a_usable_user_or_date_is_refused():
    now = 1_800_000_000
    for fields in ({"auth_date": str(now)}, {"auth_date": str(now), "user": '{"id": "1"}'}, {"user": '{"id": 1}'}):
        raw = urlencode({**fields, "hash": sign(fields, TOKEN)})
        with pytest.raises(InitDataRefused):
            check_init_data(raw, TOKEN, now=now)
    future = {"auth_date": str(now + 3600), "user": '{"id": 1}'}
    with pytest.raises(InitDataRefused, match="expired"):
        check_init_data(urlencode({**future, "hash": sign(future, TOKEN)}), TOKEN, now=now)
