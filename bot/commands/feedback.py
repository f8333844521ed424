"""`fuzi feedback [--days N] [--json]`: the verdicts people gave Fuzi's answers (reactions, web buttons)."""

from __future__ import annotations

import argparse
import json
import re

_REF = re.compile(r"《[^》]{1,40}》(?:第\d+章)?")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("feedback", help="list 👍/👎 on answers: question, passages, level")
    p.add_argument("--days", type=float, default=7.0, help="how far back (default 7)")
    p.add_argument("--json", action="store_true", help="one JSON object per verdict")
    p.set_defaults(func=_feedback)


def _feedback(args: argparse.Namespace) -> int:
    import asyncio
    from datetime import UTC, datetime, timedelta

    from bot.commands.db import _engine
    from core.storage import Storage
    from core.storage.migrate import upgrade

    engine = _engine()
    try:
        upgrade(engine)  # a database from before revision 0022_i22 gets the feedback tables (empty)
        since = datetime.now(UTC) - timedelta(days=args.days)
        entries = asyncio.run(Storage(engine).feedback.since(since))
    finally:
        engine.dispose()
    for e in entries:
        passages = list(e.passages) or list(dict.fromkeys(_REF.findall(e.answer)))
        row = {
            "at": e.created_at.isoformat(timespec="seconds"),
            "verdict": e.verdict,
            "emoji": e.emoji,
            "platform": e.platform,
            "account": e.account,
            "level": e.level,
            "question": e.question,
            "passages": passages,
            "trace_id": e.trace_id,
        }
        print(json.dumps(row, ensure_ascii=False) if args.json else _line(row))
    up = sum(e.verdict == "up" for e in entries)
    if not args.json:
        print(f"{len(entries)} verdicts in {args.days:g} days: {up} up, {len(entries) - up} down")
    return 0


def _line(row: dict) -> str:
    question = " ".join(row["question"].split())
    question = question if len(question) <= 60 else question[:59] + "…"
    passages = "、".join(row["passages"]) or "(no passage cited)"
    mark = "👍" if row["verdict"] == "up" else "👎"
    return (
        f"{row['at'][:16].replace('T', ' ')} {mark} {row['platform']} L{row['level']} {row['account']}\n"
        f"    Q: {question}\n    A: {passages}  [trace {row['trace_id']}]"
    )
