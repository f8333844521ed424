"""How long the operator console's reads take over a year of answers. Not a test; prints a Markdown table.

    python benchmarks/admin_stats.py [answers] [--postgres]

Fills a fresh database (SQLite file, or a PostgreSQL schema of the test server with --postgres)
with `answers` exchanges spread over 365 days (question, answer, `reply_stats`, a verdict on one in
twenty, a refusal per fifty), then times `stats(30)`, `stats(365)`, one page of feedback and of
unanswered questions, and the whole unanswered list read page by page as the CSV export reads it.
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, insert, text  # noqa: E402

from core.storage import Storage, open_database  # noqa: E402
from core.storage.models import Chat, Message, ReplyFeedback, ReplyStats  # noqa: E402

POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def fill(engine, answers: int) -> None:
    rng, now = random.Random(7), datetime.now(UTC)
    chats = [f"telegram:{n}" for n in range(500)]
    with engine.begin() as conn:
        conn.execute(
            insert(Chat), [{"key": c, "platform": "telegram", "is_group": False, "created_at": now} for c in chats]
        )
        for start in range(0, answers, 5000):
            messages, stats, verdicts = [], [], []
            for n in range(start, min(start + 5000, answers)):
                at = now - timedelta(days=rng.random() * 365)
                trace, chat, level = f"t{n}", rng.choice(chats), rng.choice((0, 0, 0, 1, 2))
                status = "rate_limited" if n % 50 == 0 else "ok"
                common = {"chat_key": chat, "trace_id": trace, "created_at": at, "speaker": "", "account": ""}
                ask = {"role": "user", "text": "何为仁？" * 5, "status": status, "person_id": n % 3000, "level": None}
                messages.append({**common, **ask})
                messages.append(
                    {
                        **common,
                        "role": "assistant",
                        "text": "子曰：" * 40,
                        "status": "ok",
                        "person_id": None,
                        "level": level,
                    }
                )
                stats.append(
                    {
                        "trace_id": trace, "platform": "telegram", "chat_key": chat, "person_id": n % 3000,
                        "level": level, "model": rng.choice(("deepseek-chat", "deepseek-reasoner")) if level < 2 else None,
                        "prompt_tokens": 900, "completion_tokens": 200, "first_visible_ms": rng.randint(300, 3000),
                        "final_ms": rng.randint(3000, 15000), "cited": rng.choice((0, 1, 2)), "created_at": at,
                    }
                )  # fmt: skip
                if n % 20 == 0:
                    verdicts.append(
                        {"trace_id": trace, "platform": "telegram", "account": f"telegram:{n}", "created_at": at,
                         "verdict": rng.choice(("up", "down")), "emoji": "👍"}
                    )  # fmt: skip
            conn.execute(insert(Message), messages)
            conn.execute(insert(ReplyStats), stats)
            conn.execute(insert(ReplyFeedback), verdicts)
    if engine.dialect.name == "postgresql":  # what autovacuum does to a table this size: the planner's statistics
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("ANALYZE"))


async def timed(what, fn) -> tuple[str, float, object]:
    started = time.perf_counter()
    result = await fn()
    return what, (time.perf_counter() - started) * 1000, result


async def measure(url: str, answers: int) -> list[tuple[str, float, object]]:
    engine = open_database(url)
    try:
        started = time.perf_counter()
        fill(engine, answers)
        print(f"filled {answers} answers in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        ops = Storage(engine).operators

        async def export() -> int:
            rows, cursor = 0, None
            while True:
                page = await ops.unanswered(365, cursor, 500)
                rows += len(page.items)
                if page.next is None:
                    return rows
                cursor = page.next

        return [
            await timed("stats(30)", lambda: ops.stats(30)),
            await timed("stats(365)", lambda: ops.stats(365)),
            await timed("feedback page (50)", lambda: ops.feedback(365)),
            await timed("unanswered page (50)", lambda: ops.unanswered(365)),
            await timed("unanswered, every page of 500 (CSV export)", export),
        ]
    finally:
        engine.dispose()


def main() -> None:
    answers = int(next((a for a in sys.argv[1:] if a.isdigit()), "100000"))
    if "--postgres" in sys.argv:
        schema = f"bench_{uuid.uuid4().hex[:8]}"
        admin = create_engine(POSTGRES)
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        url = f"{POSTGRES}?options=-csearch_path%3D{schema}"
        try:
            results = asyncio.run(measure(url, answers))
        finally:
            with admin.begin() as conn:
                conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            results = asyncio.run(measure(f"sqlite:///{Path(tmp) / 'fuzi.sqlite3'}", answers))
    backend = "PostgreSQL" if "--postgres" in sys.argv else "SQLite"
    print(f"| {backend}, {answers} answers | ms |\n|---|---|")
    for what, ms, result in results:
        extra = f" ({result} rows)" if isinstance(result, int) else ""
        print(f"| {what}{extra} | {ms:.0f} |")


if __name__ == "__main__":
    main()
