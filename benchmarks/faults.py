"""Faults with 20 people and two `fuzi run telegram` webhook replicas: who is answered, told, lost, stuck.

    FUZI_CORPUS_DIR=../shared/corpus python benchmarks/faults.py [--people 20] [--outage 10] [--lease 10]

Two real replica processes on one PostgreSQL schema (reached through a TCP proxy the benchmark can
cut, in front of the shared server, which is never touched) and a Redis of their own
(`redis-server --port <free>`), Telegram played by the fake Bot API and the model by the fake
OpenAI server (a 24-character answer streamed over ~2 s). Scenarios, each on fresh chats:

- `postgres_down`: the proxy cut for `--outage` s (connections reset, new ones refused);
- `redis_down`: the Redis server killed for `--outage` s, then started again on the same port;
- `replica_killed`: replica A killed with SIGKILL (restarted after the scenario); its people's
  frozen replies are repaired by replica B (a new "interrupted" message where nothing was shown);
- `llm_hung`: the model accepts requests and never answers, for `--outage` s.

Each person asks once just before the fault (1 s before it: replies are streaming when it hits),
once during it, and again from the moment it ends (every second while told "busy"). Reported per
scenario: of the questions of rounds 1-2, answered (stored as answered: at once, or anew from the
inbox after a crash), told (not answered, and a one-line notice came: error, busy, interrupted,
lost), lost (neither); stuck = people still "busy" 5 s after the fault
ended (a reply still legitimately running counts here), stuck = still "busy" 30 s after it ended;
reply rows left "streaming" at the end; /readyz of both replicas during the fault; time
to recover = from the end of the fault until every person's new question was answered.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402
from sqlalchemy import create_engine, text  # noqa: E402

from core.texts import say  # noqa: E402
from tests.fakes.openai_server import FakeOpenAI, Hang, Reply  # noqa: E402
from tests.fakes.telegram_api import FakeTelegram  # noqa: E402
from tests.helpers_db import POSTGRES_URL, postgres_schema_url  # noqa: E402
from tests.helpers_replicas import OwnRedis, Replica, TcpProxy, replica_env  # noqa: E402

ANSWER = "学而时习之，不亦说乎？有朋自远方来，不亦乐乎？"
NOTICES = (
    say("BUSY", "zh")[:8],
    say("ERROR", "zh", trace="x")[:6],
    say("INTERRUPTED", "zh")[:8],
    say("LOST", "zh")[:8],
)
BUSY = NOTICES[0]


class Bench:
    def __init__(self, args: argparse.Namespace, tg: FakeTelegram, llm: FakeOpenAI, work: Path) -> None:
        self.args, self.tg, self.llm, self.work = args, tg, llm, work
        self.hung = False
        self.retries: set[asyncio.Task] = set()  # updates a replica refused, sent again as Telegram would
        llm.set_default(self._model)

    def _model(self, body: dict):
        return Hang(None) if self.hung else Reply(text=ANSWER, chunk=4, chunk_delay=0.25)

    async def setup(self) -> None:
        self.schema = f"bench_{uuid.uuid4().hex[:10]}"
        admin = create_engine(POSTGRES_URL)
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{self.schema}"'))
        admin.dispose()
        self.direct = postgres_schema_url(self.schema)
        self.proxy = await TcpProxy("127.0.0.1", 5432).start()
        self.redis = OwnRedis().start()
        home = self.work / "home"
        home.mkdir()
        proxied = self.direct.replace("@127.0.0.1:5432/", f"@127.0.0.1:{self.proxy.port}/")
        self.env = replica_env(home, proxied, self.redis.url, "fuzi:", self.tg.base_url, self.llm.base_url)
        self.env["FUZI_REDIS_REPLY_LEASE_S"] = str(self.args.lease)
        release = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-m", "bot", "index"], cwd=home, env=self.env, capture_output=True
        )
        assert release.returncode == 0, release.stderr[-2000:]
        self.replicas = []
        async with aiohttp.ClientSession() as session:
            for i in range(2):
                self.replicas.append(await Replica.started(self.env, self.work / f"replica{i}.log", session))

    async def teardown(self) -> None:
        for r in self.replicas:
            r.stop()
        await self.proxy.aclose()
        self.redis.close()
        admin = create_engine(POSTGRES_URL)
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{self.schema}" CASCADE'))
        admin.dispose()

    async def ask(self, session, chat: int, question: str) -> None:
        update = self.tg.private_text(chat, question)
        if await self._deliver(session, chat, update) != 200:  # Telegram keeps an unacknowledged update
            self.retries.add(asyncio.create_task(self._redeliver(session, chat, update)))

    async def _deliver(self, session, chat: int, update: dict) -> int:
        live = [r for r in self.replicas if r.proc.poll() is None]
        return await live[chat % len(live)].deliver(session, update)

    async def _redeliver(self, session, chat: int, update: dict) -> None:
        """Send it again every 2 s until a replica answers 200, as Telegram retries a webhook (60 s at most)."""
        for _ in range(30):
            await asyncio.sleep(2.0)
            if await self._deliver(session, chat, update) == 200:
                return

    def bot_texts(self, chat: int) -> list[str]:
        return [m.text for m in self.tg.messages_in(chat)]

    async def fault(self, name: str, on: bool) -> None:
        if name == "postgres_down":
            await (self.proxy.cut() if on else self.proxy.restore())
        elif name == "redis_down":
            self.redis.stop() if on else self.redis.start()
        elif name == "replica_killed" and on:
            self.replicas[0].proc.kill()
            self.replicas[0].proc.wait(10)
        elif name == "llm_hung":
            self.hung = on

    async def scenario(self, name: str, first_chat: int) -> dict:
        chats = list(range(first_chat, first_chat + self.args.people))
        async with aiohttp.ClientSession() as session:
            await asyncio.gather(*(self.ask(session, c, f"何为学？{c}") for c in chats))
            await asyncio.sleep(1.0)
            await self.fault(name, True)
            fault_at = time.monotonic()
            await asyncio.sleep(2.0)
            await asyncio.gather(*(self.ask(session, c, f"何为仁？{c}") for c in chats))
            ready = [await r.readyz(session) for r in self.replicas if r.proc.poll() is None]
            await asyncio.sleep(max(0.0, self.args.outage - (time.monotonic() - fault_at)))
            await self.fault(name, False)
            ended = time.monotonic()
            recovered, stuck = await self.recover(session, chats, ended)
            await asyncio.sleep(self.args.lease + 5)  # the sweep repairs what a dead replica left
            if self.retries:  # updates refused during the fault, then delivered again
                await asyncio.wait(self.retries)
                self.retries.clear()
                await asyncio.sleep(5)
        questions = {c: (f"何为学？{c}", f"何为仁？{c}") for c in chats}
        answered = self.answered({q for pair in questions.values() for q in pair})
        told = lost = 0
        for c, pair in questions.items():
            open_ = [q for q in pair if q not in answered]
            notices = sum(1 for t in self.bot_texts(c) if any(n in t for n in NOTICES))
            told += min(len(open_), notices)  # each unanswered question told by at most one notice
            lost += max(0, len(open_) - notices)
        if self.args.dump:
            with open(self.args.dump, "a") as out:
                for c in chats:
                    print(name, c, self.snapshot[c], self.bot_texts(c), file=out)
        return {
            "scenario": name,
            "asked": 2 * len(chats),
            "answered": sum(q in answered for pair in questions.values() for q in pair),
            "told": told,
            "lost": lost,
            "busy_5s_after": stuck,
            "stuck_30s_after": self.stuck_30,
            "rows_streaming": self.streaming_rows(),
            "readyz": " ".join(f"{s}/{b.get('status', '-')}" for s, b in ready),
            "recover_s": round(recovered, 1) if recovered is not None else None,
        }

    async def recover(self, session, chats: list[int], ended: float) -> tuple[float | None, int]:
        """Each person asks again from the end of the fault (again every second while 'busy')."""
        self.snapshot = {c: len(self.tg.messages_in(c)) for c in chats}
        pending, asked_at, stuck, stuck_30 = set(chats), {}, None, 0
        deadline = ended + 120
        while pending and time.monotonic() < deadline:
            for c in list(pending):
                texts = self.bot_texts(c)[self.snapshot[c] :]
                if any(ANSWER[:10] in t for t in texts) or (self.hung is False and _l2(texts)):
                    pending.discard(c)
                elif c not in asked_at or (texts and BUSY in texts[-1] and time.monotonic() - asked_at[c] > 1):
                    asked_at[c] = time.monotonic()
                    await self.ask(session, c, f"温故而知新{c}")
            since = time.monotonic() - ended
            if stuck is None and since >= 5:
                stuck = self._busy(pending)
            if since >= 30 and not stuck_30:
                stuck_30 = self._busy(pending) or -1
            await asyncio.sleep(0.3)
        self.stuck_30 = max(stuck_30, 0)
        return (None if pending else time.monotonic() - ended), stuck or 0

    def _busy(self, chats: set[int]) -> int:
        return sum(1 for c in chats if any(BUSY in t for t in self.bot_texts(c)[self.snapshot[c] :]))

    def answered(self, questions: set[str]) -> set[str]:
        """The questions that were answered in the end (a stored `ok` question: at once or anew from
        the inbox after a crash), whatever notices came before."""
        engine = create_engine(self.direct)
        with engine.connect() as conn:
            rows = conn.execute(
                text("SELECT text FROM message WHERE role = 'user' AND status = 'ok' AND text = ANY(:qs)"),
                {"qs": list(questions)},
            )
            found = {row[0] for row in rows}
        engine.dispose()
        return found

    def streaming_rows(self) -> int:
        engine = create_engine(self.direct)
        with engine.connect() as conn:
            count = conn.execute(text("SELECT count(*) FROM message WHERE status = 'streaming'")).scalar_one()
        engine.dispose()
        return count

    async def restart_killed(self) -> None:
        if self.replicas[0].proc.poll() is not None:
            self.replicas[0].log.close()
            self.replicas[0] = Replica(self.env, self.work / "replica0b.log")
            async with aiohttp.ClientSession() as session:
                await self.replicas[0].ready(session)


def _l2(texts: list[str]) -> bool:
    return any(t and not any(n in t for n in NOTICES) and len(t) > 40 for t in texts)


async def main(args: argparse.Namespace) -> None:
    logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)  # the fake model's writes to killed peers
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="fuzi-faults-") as work:
        llm = await FakeOpenAI().start()
        async with FakeTelegram() as tg:
            bench = Bench(args, tg, llm, Path(work))
            await bench.setup()
            rows = []
            try:
                for n, name in enumerate(args.scenarios):
                    rows.append(await bench.scenario(name, 1000 * (n + 1)))
                    print(rows[-1], flush=True)
                    await bench.restart_killed()
            finally:
                await bench.teardown()
                await llm.stop()
    keys = list(rows[0])
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for row in rows:
        print("| " + " | ".join(str(row[k]) for k in keys) + " |")
    print(f"load average before: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=20)
    parser.add_argument("--outage", type=float, default=10.0)
    parser.add_argument("--lease", type=float, default=10.0)
    parser.add_argument("--dump", help="append every chat's bot messages to this file")
    parser.add_argument("--scenarios", nargs="+", default=["postgres_down", "redis_down", "replica_killed", "llm_hung"])
    asyncio.run(main(parser.parse_args()))
