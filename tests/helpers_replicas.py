"""Fuzi as real processes, for subprocess tests and benchmarks: start them, wait for them, cut what
they depend on.

- `fuzi_env`: the environment of a `python -m bot …` process (the caller's FUZI_/TELEGRAM_/DISCORD_
  dropped; hashing embedder, offline, no profile); `release_index` runs the release step
  (`fuzi index`) in it, as a deployment does before the replicas start.
- `FuziProcess`: one `python -m bot run <platform>` with its output in a log file; `assert_alive`,
  `tail`, `terminate`; `stop_all` SIGTERMs several at once and waits for them.
- `Replica`: a `fuzi run telegram` webhook process with an ops port: `started` waits for /readyz.
- `TcpProxy`: a loopback TCP proxy in front of the shared PostgreSQL; `cut()` drops every
  connection and refuses new ones (the database is "down" for the replicas), `restore()` listens
  again on the same port. The shared server itself is never touched.
- `OwnRedis`: a `redis-server --port <free> --save ''` of the test's own; `stop()`/`start()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from tests.helpers_process import ROOT, child_env, free_port

ROOT = Path(__file__).resolve().parents[1]
SECRET = "webhook-secret-123"


class TcpProxy:
    """Forwards 127.0.0.1:<port> to (host, port) until cut; see the module docstring."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.port = free_port()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> TcpProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port, reuse_address=True)
        return self

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        self._writers |= {writer, up_writer}
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer), return_exceptions=True)
        self._writers -= {writer, up_writer}

    async def cut(self) -> None:
        """Refuse new connections and reset the open ones (a database that went away)."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            with contextlib.suppress(Exception):
                writer.transport.abort()
        self._writers.clear()

    async def restore(self) -> None:
        await self.start()

    async def aclose(self) -> None:
        await self.cut()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    finally:
        with contextlib.suppress(Exception):
            writer.close()


class OwnRedis:
    """A throw-away redis-server on a free port (no persistence); only this one is ever stopped."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None
        self._dir = tempfile.mkdtemp(prefix="fuzi-redis-")

    def start(self) -> OwnRedis:
        binary = shutil.which("redis-server")
        assert binary, "redis-server not installed"
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--save", "", "--appendonly", "no", "--dir", self._dir],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.2):
                return self
            time.sleep(0.05)
        raise AssertionError("own redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self._dir, ignore_errors=True)


def fuzi_env(home: Path, database_url: str, llm_base: str, **settings: str) -> dict:
    """The environment of a `python -m bot …` process in `home` plus `settings` (FUZI_*, TELEGRAM_*,
    DISCORD_* from the caller's own environment dropped)."""
    return child_env(
        home,
        FUZI_DATABASE_URL=database_url,
        FUZI_LLM_BASE_URL=llm_base,
        FUZI_LLM_API_KEY="sk-test",
        **settings,
    )


async def release_index(env: dict) -> None:
    """`fuzi index` in the process environment: the release step, so every replica opens one index
    (run in a thread: the test's fake servers keep answering meanwhile)."""
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "bot", "index"],
        cwd=env["FUZI_HOME"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]


def replica_env(home: Path, database_url: str, redis_url: str, prefix: str, telegram_base: str, llm_base: str) -> dict:
    """The environment of a Telegram webhook replica on one PostgreSQL and one Redis prefix."""
    return fuzi_env(
        home,
        database_url,
        llm_base,
        FUZI_DATABASE_POOL_TIMEOUT_S="3",
        FUZI_REDIS_URL=redis_url,
        FUZI_REDIS_PREFIX=prefix,
        TELEGRAM_BOT_TOKEN="123456:TEST-token",
        TELEGRAM_API_BASE_URL=telegram_base,
        TELEGRAM_MODE="webhook",
        TELEGRAM_WEBHOOK_URL="https://bot.example.invalid/telegram",
        TELEGRAM_WEBHOOK_LISTEN="127.0.0.1",
        TELEGRAM_WEBHOOK_SECRET=SECRET,
        TELEGRAM_EDIT_INTERVAL_PRIVATE_S="0.1",
        FUZI_REDIS_REPLY_LEASE_S="2",
    )


class FuziProcess:
    """One `python -m bot run <platform>` process (`telegram`, `discord`, `all`), output to `log`."""

    def __init__(self, env: dict, platform: str, log: Path) -> None:
        self.log_path = log
        self.log = open(log, "w")  # noqa: SIM115 - closed by stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "run", platform],
            cwd=env["FUZI_HOME"],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def tail(self, n: int = 3000) -> str:
        return self.log_path.read_text(errors="replace")[-n:]

    def assert_alive(self) -> None:
        """Fails with the end of the process's log when it has exited."""
        assert self.proc.poll() is None, self.tail()

    def terminate(self, grace_s: float = 20.0) -> float:
        """SIGTERM; seconds until the process was gone (killed after `grace_s`: returns inf)."""
        started = time.monotonic()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(grace_s)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
                return float("inf")
        return time.monotonic() - started

    def stop(self) -> None:
        stop_all([self])


def stop_all(processes: list[FuziProcess], grace_s: float = 20.0) -> None:
    """SIGTERM every process at once, then wait for each (killed after `grace_s`); their logs closed."""
    for p in processes:
        if p.proc.poll() is None:
            p.proc.terminate()
    for p in processes:
        p.terminate(grace_s)
        p.log.close()


class Replica(FuziProcess):
    """One `fuzi run telegram` webhook process with its ops port (/readyz)."""

    def __init__(self, env: dict, log: Path) -> None:
        self.port, self.health = free_port(), free_port()
        super().__init__(
            env | {"TELEGRAM_WEBHOOK_PORT": str(self.port), "FUZI_METRICS_PORT": str(self.health)}, "telegram", log
        )

    @classmethod
    async def started(cls, env: dict, log: Path, session: aiohttp.ClientSession, tries: int = 3) -> Replica:
        """A ready replica; started again on new ports when another process took its free port first
        (a free port is only free until someone binds it: the machine runs other tests meanwhile)."""
        for attempt in range(tries):
            replica = cls(env, log.with_suffix(f".{attempt}.log") if attempt else log)
            try:
                await replica.ready(session)
                return replica
            except AssertionError:
                replica.stop()
                if "Address already in use" not in replica.tail(20_000) or attempt == tries - 1:
                    raise
        raise AssertionError("unreachable")

    async def readyz(self, session: aiohttp.ClientSession) -> tuple[int, dict]:
        try:
            async with session.get(f"http://127.0.0.1:{self.health}/readyz", timeout=aiohttp.ClientTimeout(5)) as r:
                return r.status, await r.json()
        except (aiohttp.ClientError, TimeoutError):
            return 0, {}

    async def ready(self, session: aiohttp.ClientSession, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.assert_alive()
            if (await self.readyz(session))[0] == 200:
                return
            await asyncio.sleep(0.5)
        raise AssertionError("replica not ready: " + self.tail())

    async def deliver(self, session: aiohttp.ClientSession, update: dict) -> int:
        try:
            async with session.post(
                f"http://127.0.0.1:{self.port}/telegram",
                json=update,
                headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
                timeout=aiohttp.ClientTimeout(10),
            ) as r:
                return r.status
        except (aiohttp.ClientError, TimeoutError):
            return 0
