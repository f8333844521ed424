"""Real `fuzi chat` processes, one after another, on one PostgreSQL schema and one Redis prefix:
what one process stored and counted, the next one sees (the wiring of FUZI_DATABASE_URL and
FUZI_REDIS_URL, end to end)."""

from __future__ import annotations

import pytest

from tests.helpers_db import postgres_url, redis_prefix  # noqa: F401
from tests.test_cli_chat import run_chat

pytestmark = pytest.mark.processes


async def test_facts_and_limits_carry_over_between_processes(tmp_path, postgres_url, redis_prefix):
    redis_url, prefix = redis_prefix
    env = dict(
        FUZI_DATABASE_URL=postgres_url, FUZI_REDIS_URL=redis_url, FUZI_REDIS_PREFIX=prefix, FUZI_GUARD_PER_MINUTE="3"
    )
    code, out, err = await run_chat(
        tmp_path, ["/remember 我下周要考《论语》", "巧言令色", "学而时习之"], "--user", "zilu", **env
    )
    assert code == 0, err[-3000:]
    assert "记下了" in out and "巧言令色，鲜矣仁" in out
    code, out, err = await run_chat(tmp_path, ["/memories", "君子不器", "父母在，不远游"], "--user", "zilu", **env)
    assert code == 0, err[-3000:]
    assert "我下周要考《论语》" in out  # stored in PostgreSQL by the first process
    assert "君子不器" in out  # the third question this minute: answered
    assert "子问得急了" in out  # the fourth, counted in Redis across both processes: refused
