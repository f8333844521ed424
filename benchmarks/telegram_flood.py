"""Flood benchmark for the Telegram adapter (not a test): many chats ask at the same moment.

The real PTB application runs against the fake Bot API (tests/fakes/telegram_api.py) with
Telegram's published limits enforced by 429s: about 1 message per second per chat, 20 per minute
per group, 30 per second overall. A fake engine streams ~300 tokens per answer. Prints how many final
texts arrived exactly, how many 429s the bot received, p50/p95 time to first visible text and to the
final text, and edits per reply. Stops by itself (``--deadline``).

"What Telegram's limits allow" (``final_bound_*``): every chat needs at least two requests — its
first visible message, as soon as its question arrives, and its final text, once the engine has
yielded it (``ready``, measured per chat) — and at most 30 requests a second reach Telegram overall.
Scheduling those requests greedily, earliest first, one every 1/30 s, gives each chat's earliest
possible final; the per-chat (1 s) and per-group (20 a minute) limits do not bind because the first
message goes out seconds before the answer is ready. ``final_vs_bound_p95`` is the measured final
p95 over that bound's p95 (goal: ≤ 1.2).

    python -m benchmarks.telegram_flood [--chats 100] [--groups 30] [--tokens 300] [--token-ms 25]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import time

from adapters.common.render import compose
from core.events import Citation, FinalReply, TextDelta, ToolStep
from tests.fakes.engine import ScriptedEngine
from tests.fakes.telegram_api import BOT_USERNAME, FakeTelegram, FloodLimits
from tests.helpers_telegram import running_bot

TOKENS = [
    "子曰",
    "：",
    "学",
    "而",
    "时",
    "习",
    "之",
    "，",
    "不亦",
    "说",
    "乎",
    "？",
    "君子",
    "务本",
    "，",
    "本立",
    "而",
    "道生",
    "。",
    "仁",
    "者",
    "爱人",
    "。\n\n",
]


class TimedEngine(ScriptedEngine):
    """The scripted engine, noting when each chat's final reply is ready (``ready[chat]``)."""

    def __init__(self) -> None:
        super().__init__()
        self.ready: dict[int, float] = {}

    async def handle(self, incoming):
        async for event in super().handle(incoming):
            if isinstance(event, FinalReply):
                self.ready[int(incoming.chat_id)] = time.monotonic()
            yield event


def limits_bound(asked: float, ready: list[float], per_s: float = 30.0) -> list[float]:
    """Earliest final per chat under the overall cap: firsts at ``asked``, finals at ``ready``."""
    requests = sorted([(asked, 1)] * len(ready) + [(t, 0) for t in ready])
    slot, finals = -1e9, []
    for earliest, is_first in requests:
        slot = max(earliest, slot + 1 / per_s)
        if not is_first:
            finals.append(slot)
    return finals


def answer_for(chat: int, tokens: int) -> tuple[list[str], FinalReply]:
    pieces = [f"[{chat}]"] + [TOKENS[(chat + i) % len(TOKENS)] for i in range(tokens - 1)]
    text = "".join(pieces).strip() + "[1]"
    final = FinalReply(text, (Citation(1, "lunyu:1.1", "《论语·学而》第1章"),))
    return pieces, final


def script(pieces: list[str], final: FinalReply, token_s: float, think_s: float = 0.0) -> list:
    steps: list = [think_s] if think_s else []  # the model has not answered yet (queued, slow start)
    steps += [ToolStep("search_classics", "start"), 0.4, ToolStep("search_classics", "end", ok=True)]
    for piece in pieces:
        steps += [token_s, TextDelta(piece)]
    return steps + [final]


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] if ordered else float("nan")


def chat_ids(chats: int, groups: int) -> list[int]:
    return [-(100000 + i) if i < groups else 500 + i for i in range(chats)]


async def run(args: argparse.Namespace) -> dict:
    engine = TimedEngine()
    expected: dict[int, str] = {}
    async with FakeTelegram(limits=FloodLimits(), latency=args.latency_ms / 1000) as tg:
        ids = chat_ids(args.chats, args.groups)
        for chat in ids:
            pieces, final = answer_for(chat, args.tokens)
            expected[chat] = compose(final)
            engine.on_text(f"问{chat}", *script(pieces, final, args.token_ms / 1000, args.think_s))
        async with running_bot(
            tg,
            engine,
            edit_interval_private_s=1.0,
            edit_interval_group_s=3.0,
            poll_timeout_s=1,
            limiter=args.limiter,
        ):
            await asyncio.sleep(0.2)
            start = time.monotonic()
            for chat in ids:
                if chat < 0:
                    tg.group_text(chat, f"@{BOT_USERNAME} 问{chat}", user_id=abs(chat))
                else:
                    tg.private_text(chat, f"问{chat}")

            def done() -> bool:
                return all("".join(m.text for m in tg.messages_in(c)) == expected[c] for c in ids)

            try:
                await tg.wait_for(done, timeout=args.deadline)
            except TimeoutError:
                pass
            elapsed = time.monotonic() - start
        result = summarize(tg, ids, expected, start, elapsed, args)
    bound = [t - start for t in limits_bound(start, list(engine.ready.values()))]
    result["final_bound_p50_s"] = round(pct(bound, 50), 2)
    result["final_bound_p95_s"] = round(pct(bound, 95), 2)
    result["final_vs_bound_p95"] = round(result["final_p95_s"] / pct(bound, 95), 2) if bound else None
    result["load_before_after"] = [args.load_before, round(os.getloadavg()[0], 2)]
    return result


def busiest_window(times: list[float], width: float = 1.0) -> int:
    """The most requests in any window of ``width`` seconds (how Telegram's overall limit counts)."""
    times, most, lo = sorted(times), 0, 0
    for hi, t in enumerate(times):
        while t - times[lo] >= width:
            lo += 1
        most = max(most, hi - lo + 1)
    return most


def summarize(tg: FakeTelegram, ids: list[int], expected: dict[int, str], start: float, elapsed: float, args) -> dict:
    first, final, edits, exact = [], [], [], 0
    for chat in ids:
        ok_calls = [
            c for c in tg.chat_calls(chat) if c.status == 200 and c.method in ("sendMessage", "editMessageText")
        ]
        texts = [c for c in ok_calls if c.params.get("text") not in ("…", None)]  # 翻检典籍中… counts
        if texts:
            first.append(texts[0].t - start)
        if "".join(m.text for m in tg.messages_in(chat)) == expected[chat]:
            exact += 1
            final.append(ok_calls[-1].t - start)
        edits.append(sum(1 for c in ok_calls if c.method == "editMessageText"))
    per_second: dict[int, int] = {}
    for c in tg.calls:
        if c.chat_id is not None and c.status == 200:
            per_second[int(c.t - start)] = per_second.get(int(c.t - start), 0) + 1
    return {
        "limiter": args.limiter,
        "chats": len(ids),
        "groups": args.groups,
        "tokens_per_answer": args.tokens,
        "token_ms": args.token_ms,
        "finals_exact": exact,
        "http_429_received": tg.retry_after_429s,
        "http_429_by_limit": tg.refused_by_limit,
        "first_visible_p50_s": round(pct(first, 50), 2),
        "first_visible_p95_s": round(pct(first, 95), 2),
        "final_p50_s": round(pct(final, 50), 2),
        "final_p95_s": round(pct(final, 95), 2),
        "edits_per_reply_mean": round(statistics.mean(edits), 2),
        "edits_per_reply_max": max(edits),
        "typing_actions": len([c for c in tg.calls if c.method == "sendChatAction" and c.status == 200]),
        "peak_requests_per_s": max(per_second.values(), default=0),
        "busiest_sliding_second": busiest_window([c.t for c in tg.calls if c.chat_id is not None and c.status == 200]),
        "elapsed_s": round(elapsed, 1),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=100)
    parser.add_argument("--groups", type=int, default=30, help="how many of the chats are groups")
    parser.add_argument("--tokens", type=int, default=300)
    parser.add_argument("--token-ms", type=float, default=25.0, help="delay between streamed tokens")
    parser.add_argument("--latency-ms", type=float, default=30.0, help="fake Bot API latency per request")
    parser.add_argument("--limiter", choices=["priority", "aio"], default="priority", help="bot-wide rate limiter")
    parser.add_argument("--think-s", type=float, default=0.0, help="seconds before the engine's first event")
    parser.add_argument("--deadline", type=float, default=180.0, help="give up after this many seconds")
    args = parser.parse_args()
    args.load_before = round(os.getloadavg()[0], 2)
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    print(json.dumps(asyncio.run(run(args)), ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
