"""How long Fuzi takes to give its first answer: from a fresh clone, and warm.

    python -m benchmarks.start_time warm [--runs 8]     .venv, corpus and index in place
    python -m benchmarks.start_time fresh [--ref HEAD]  a clone, no pip or uv cache, no LLM key
        [--first-answer-only] [--warm-caches]

`warm` runs `printf '巧言令色\\n' | ./scripts/chat` and `python -m bot chat` (the same message) in
turn, `--runs` times each, in this checkout (its .venv and $FUZI_HOME; the first start, if any, is
not counted), and prints wall seconds (min, median, max) and CPU seconds (user + system) per start.
`fresh` clones `--ref` of this repository into a temporary folder, points UV_CACHE_DIR and
PIP_CACHE_DIR at empty folders (npm's cache is left as it is) and unsets FUZI_HOME and
FUZI_CORPUS_DIR, then times `printf '巧言令色\\n' | ./scripts/chat` to the answer's first line on
stdout and to the exit (the index build finishes first; `--first-answer-only` stops the chat at the
answer instead, as a person who closes it would); it prints the install log's own figures too, the
clone's time, and a timeline from the chat's start: the venv, uv, the install's steps, the kernel,
each stderr line, the answer. `--warm-caches` measures a second clone instead: an earlier clone's
install (then removed) has filled those cache folders, as on a machine or CI runner that keeps uv's
cache; the output says which. Both print `uptime` before and after: on a shared machine wall time is
an upper bound.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MESSAGE = "巧言令色\n"
ANSWER = "巧言令色，鲜矣仁"


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_start(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall s, CPU s) of one piped start, answer checked."""
    cpu, t0 = _cpu(), time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, input=MESSAGE, capture_output=True, text=True, timeout=300)
    wall = time.perf_counter() - t0
    if done.returncode != 0 or ANSWER not in done.stdout:
        raise SystemExit(f"{' '.join(command)}: exit {done.returncode}, no answer\n{done.stderr[-2000:]}")
    return wall, _cpu() - cpu


def summary(values: list[float]) -> dict[str, float]:
    return {"min": round(min(values), 2), "median": round(statistics.median(values), 2), "max": round(max(values), 2)}


def warm(runs: int) -> dict:
    env = dict(os.environ)
    python = str(ROOT / ".venv" / "bin" / "python")
    if not Path(python).exists():
        python = sys.executable
    commands = {"./scripts/chat": ["./scripts/chat"], "python -m bot chat": [python, "-m", "bot", "chat"]}
    one_start(commands["./scripts/chat"], ROOT, env)  # a first start (venv, corpus, index) is not counted
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            times[name].append(one_start(command, ROOT, env))
    return {
        name: {"wall_s": summary([w for w, _ in runs_]), "cpu_s": summary([c for _, c in runs_])}
        for name, runs_ in times.items()
    }


class Timeline:
    """What a fresh start did when, in seconds from `./scripts/chat`'s start: files that appear
    (the venv, uv, the install log's steps, the install's marker, Fuzi's kernel) and stderr's lines."""

    FILES = (
        (".venv/bin/python", "venv made"),
        (".venv/bin/uv", "uv installed into the venv"),
        (".venv/.fuzi-installed", "install done"),
    )
    STEPS = ("Resolved", "Prepared", "Installed")

    def __init__(self, clone: Path, t0: float):
        self.clone, self.t0, self.events = clone, t0, []
        self._lock, self._stop = threading.Lock(), threading.Event()
        self._watch = threading.Thread(target=self._poll, daemon=True)
        self._watch.start()

    def add(self, what: str) -> None:
        with self._lock:
            self.events.append((round(time.perf_counter() - self.t0, 2), what))

    def read_lines(self, stream) -> threading.Thread:
        def read() -> None:
            for line in stream:
                if line.strip():
                    self.add(f"stderr: {line.strip()[:100]}")

        thread = threading.Thread(target=read, daemon=True)
        thread.start()
        return thread

    def _poll(self) -> None:
        files, steps, kernels = dict(self.FILES), list(self.STEPS), ["_e5vnni", "_e5avx2"]
        log = self.clone / ".venv" / "install.log"
        while not self._stop.wait(0.02):
            for path in [p for p in files if (self.clone / p).exists()]:
                self.add(files.pop(path))
            if steps and log.exists():
                text = log.read_text(encoding="utf-8", errors="replace")
                for step in [s for s in steps if f"\n{s} " in f"\n{text}"]:
                    steps.remove(step)
                    line = next(li for li in text.splitlines() if li.startswith(step))
                    self.add(f"uv: {line.strip()}")
            for kernel in [k for k in kernels if any((self.clone / "core" / "retrieval").glob(f"{k}*.so"))]:
                kernels.remove(kernel)
                self.add(f"Fuzi's kernel built (core/retrieval/{kernel}*.so)")

    def stop(self) -> list[tuple[float, str]]:
        self._stop.set()
        self._watch.join()
        with self._lock:
            return sorted(self.events)


def _clone(ref: str, to: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(ROOT), str(to)], check=True)
    subprocess.run(["git", "-C", str(to), "checkout", "-q", ref], check=True)
    return time.perf_counter() - t0


def _wait_compiled(venv: Path) -> None:
    """The background byte-compile of a venv: waited for, so its folder can go."""
    deadline = time.monotonic() + 600
    while not (venv / ".fuzi-compiled").exists() and time.monotonic() < deadline:
        time.sleep(1)


def fresh(ref: str, first_answer_only: bool = False, warm_caches: bool = False) -> dict:
    with tempfile.TemporaryDirectory(prefix="fuzi-fresh-") as tmp:
        clone, caches = Path(tmp) / "fuzi", Path(tmp) / "caches"
        env = {k: v for k, v in os.environ.items() if k not in ("FUZI_HOME", "FUZI_CORPUS_DIR", "VIRTUAL_ENV")}
        env |= {"UV_CACHE_DIR": str(caches / "uv"), "PIP_CACHE_DIR": str(caches / "pip")}
        if warm_caches:  # an earlier clone's install fills them (jieba's wheel built, every download kept)
            earlier = Path(tmp) / "earlier"
            _clone(ref, earlier)
            install = 'source scripts/_venv.sh && ensure_venv ""'
            subprocess.run(["bash", "-c", install], cwd=earlier, env=env, check=True, capture_output=True)
            _wait_compiled(earlier / ".venv")
            shutil.rmtree(earlier)
        clone_s = _clone(ref, clone)
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            ["./scripts/chat"],
            cwd=clone,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        timeline = Timeline(clone, t0)
        stderr = timeline.read_lines(proc.stderr)
        proc.stdin.write(MESSAGE)
        proc.stdin.close()
        first = None
        for line in proc.stdout:
            if first is None and line.strip():
                first = time.perf_counter() - t0
                timeline.add(f"first answer: {line.strip()[:60]}")
                if first_answer_only:
                    proc.terminate()
        code = proc.wait()
        end = time.perf_counter() - t0
        stderr.join(timeout=5)
        events = timeline.stop()
        log = (clone / ".venv" / "install.log").read_text(encoding="utf-8", errors="replace")
        steps = [line.strip() for line in log.splitlines() if line.startswith(Timeline.STEPS)]
        _wait_compiled(clone / ".venv")
        shutil.rmtree(clone / ".venv", ignore_errors=True)
    return {
        "caches": "uv and pip caches filled by an earlier clone's install"
        if warm_caches
        else "uv and pip caches empty",
        "exit_code": code,
        "clone_s": round(clone_s, 1),
        "first_answer_s": round(first or end, 1),
        "exit_s": round(end, 1),
        "install": steps,
        "timeline": [f"{at:6.2f} s  {what}" for at, what in events],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    sub.add_parser("warm").add_argument("--runs", type=int, default=8)
    fresh_ = sub.add_parser("fresh")
    fresh_.add_argument("--ref", default="HEAD")
    fresh_.add_argument("--first-answer-only", action="store_true", help="stop the chat at its first answer")
    fresh_.add_argument("--warm-caches", action="store_true", help="uv's and pip's caches filled by an earlier install")
    args = parser.parse_args()
    before = uptime()
    result = warm(args.runs) if args.what == "warm" else fresh(args.ref, args.first_answer_only, args.warm_caches)
    print(json.dumps({"uptime_before": before, **result, "uptime_after": uptime()}, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
