"""Web benchmark (not a test): `fuzi serve` as a real process against an instant fake LLM.

1. Latency: ``--sequential`` requests one after another (each its own web person); time from sending
   ``POST /v1/chat`` to the first ``delta`` event and to ``final``, p50/p95.
2. Load: ``--clients`` concurrent SSE clients (distinct people, so nobody is "busy"), each reads its
   stream to the end; completed (got ``final``), other endings, errors, wall time, and the server's
   resident memory (VmRSS now, VmHWM peak) from /proc.

The fake LLM (tests/fakes/openai_server.py) runs in this process and answers at once with a streamed
~120-character reply; the embedder is the hashing one (index built in a second). Everything shares
the same machine, so the figures include the benchmark's own load.

    FUZI_CORPUS_DIR=../shared/corpus python -m benchmarks.web_sse [--clients 200] [--sequential 100]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path

import httpx

from adapters.web.auth import JwtAuth
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.helpers_web import sse

ROOT = Path(__file__).resolve().parents[1]
SECRET = "bench-secret-0123456789abcdef0123456789"
ANSWER = "子曰：学而时习之，不亦说乎？有朋自远方来，不亦乐乎？人不知而不愠，不亦君子乎？" * 3


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] if ordered else float("nan")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_s(pid: int) -> float:
    """User + system CPU seconds the process has used (its threads included)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory_kib(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in {"VmRSS", "VmHWM"}:
            fields[key] = int(value.split()[0])
    return fields


async def start_server(home: Path, llm: FakeOpenAI, port: int) -> asyncio.subprocess.Process:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FUZI_", "TELEGRAM_", "DISCORD_"))}
    env.update(
        PYTHONPATH=str(ROOT),
        FUZI_HOME=str(home),
        FUZI_CORPUS_DIR=os.environ.get("FUZI_CORPUS_DIR", str(ROOT.parent / "shared" / "corpus")),
        FUZI_RETRIEVAL_EMBEDDER="hashing",
        FUZI_MEMORY_PROFILE_ENABLED="false",
        HF_HUB_OFFLINE="1",
        FUZI_LLM_BASE_URL=llm.base_url,
        FUZI_LLM_API_KEY="sk-bench-0123456789abcdef",
        FUZI_WEB_JWT_SECRET=SECRET,
        FUZI_WEB_PER_IP_PER_MINUTE="1000000",
        FUZI_LOG_LEVEL="WARNING",
    )
    profile = ["-m", "cProfile", "-o", os.environ["BENCH_PROFILE"]] if os.environ.get("BENCH_PROFILE") else []
    return await asyncio.create_subprocess_exec(
        sys.executable,
        *profile,
        "-m",
        "bot",
        "serve",
        "--port",
        str(port),
        cwd=home,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )


async def wait_ready(client: httpx.AsyncClient, base: str) -> None:
    for _ in range(1200):
        try:
            if (await client.get(f"{base}/readyz")).status_code == 200:
                return
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.1)
    raise RuntimeError("server did not become ready")


async def ask(client: httpx.AsyncClient, base: str, token: str) -> dict:
    started = time.perf_counter()
    first = end = None
    try:
        async with client.stream(
            "POST", f"{base}/v1/chat", json={"message": "何为学？"}, headers={"Authorization": f"Bearer {token}"}
        ) as r:
            if r.status_code != 200:
                return {"outcome": f"http_{r.status_code}"}
            async for name, data in sse(r):
                if name == "delta" and first is None:
                    first = time.perf_counter() - started
                if name in {"final", "notice"}:
                    end = time.perf_counter() - started
                    return {"outcome": name if name == "final" else data["reason"], "first": first, "end": end}
        return {"outcome": "ended_early", "first": first}
    except Exception as exc:  # a benchmark counts failures instead of stopping
        return {"outcome": f"error:{type(exc).__name__}"}


async def run(args: argparse.Namespace) -> dict:
    llm = await FakeOpenAI().start()
    llm.set_default(lambda body: Reply(ANSWER, chunk=6))
    auth, port = JwtAuth(SECRET), free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as home:
        proc = await start_server(Path(home), llm, port)
        limits = httpx.Limits(max_connections=args.clients + 10, max_keepalive_connections=args.clients + 10)
        try:
            async with httpx.AsyncClient(timeout=120, limits=limits) as client:
                await wait_ready(client, base)
                idle = memory_kib(proc.pid)
                await ask(client, base, auth.issue("warmup", 3600))
                sequential = [await ask(client, base, auth.issue(f"seq{i}", 3600)) for i in range(args.sequential)]
                tokens = [auth.issue(f"load{i}", 3600) for i in range(args.clients)]
                started, cpu_before, self_before = time.perf_counter(), cpu_s(proc.pid), time.process_time()
                load = await asyncio.gather(*(ask(client, base, t) for t in tokens))
                wall = time.perf_counter() - started
                server_cpu, bench_cpu = cpu_s(proc.pid) - cpu_before, time.process_time() - self_before
                after = memory_kib(proc.pid)
        finally:
            proc.send_signal(signal.SIGTERM)
            _, err = await asyncio.wait_for(proc.communicate(), timeout=60)
            await llm.stop()
    firsts = [r["first"] * 1000 for r in sequential if r.get("first") is not None]
    ends = [r["end"] * 1000 for r in sequential if r.get("end") is not None]
    outcomes: dict[str, int] = {}
    for r in load:
        outcomes[r["outcome"]] = outcomes.get(r["outcome"], 0) + 1
    load_first = [r["first"] * 1000 for r in load if r.get("first") is not None]
    load_end = [r["end"] * 1000 for r in load if r.get("end") is not None]
    return {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "sequential": {
            "n": len(sequential),
            "first_delta_ms_p50": round(pct(firsts, 50), 1),
            "first_delta_ms_p95": round(pct(firsts, 95), 1),
            "final_ms_p50": round(pct(ends, 50), 1),
            "final_ms_p95": round(pct(ends, 95), 1),
            "outcomes": sorted({r["outcome"] for r in sequential}),
        },
        "concurrent": {
            "clients": args.clients,
            "outcomes": outcomes,
            "completed": outcomes.get("final", 0),
            "errors": sum(v for k, v in outcomes.items() if k.startswith(("error", "http_"))),
            "wall_s": round(wall, 2),
            "server_cpu_s": round(server_cpu, 2),
            "client_and_fake_llm_cpu_s": round(bench_cpu, 2),
            "first_delta_ms_p50": round(pct(load_first, 50), 1),
            "first_delta_ms_p95": round(pct(load_first, 95), 1),
            "final_ms_p50": round(pct(load_end, 50), 1),
            "final_ms_p95": round(pct(load_end, 95), 1),
        },
        "server_rss_mib": {
            "idle": round(idle["VmRSS"] / 1024, 1),
            "after_load": round(after["VmRSS"] / 1024, 1),
            "peak": round(after["VmHWM"] / 1024, 1),
        },
        "server_exit": proc.returncode,
        "server_stderr_tail": err.decode()[-600:],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--sequential", type=int, default=100)
    print(json.dumps(asyncio.run(run(parser.parse_args())), ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
