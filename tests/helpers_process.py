"""Starting `python -m bot …` as a child process the way a user would, on embedded defaults."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from pathlib import Path

from tests.helpers_corpus import corpus_dir

ROOT = Path(__file__).resolve().parents[1]


def child_env(home: Path, **settings: str) -> dict[str, str]:
    """This process's environment less its FUZI_*, TELEGRAM_* and DISCORD_* variables, set up for a
    Fuzi in `home` with the verified corpus, the hashing test embedder (indexing in a second, no
    model), no profile memory and no model hub; then `settings`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FUZI_", "TELEGRAM_", "DISCORD_"))}
    env.update(
        PYTHONPATH=str(ROOT),
        FUZI_HOME=str(home),
        FUZI_CORPUS_DIR=str(corpus_dir()),
        FUZI_RETRIEVAL_EMBEDDER="hashing",
        FUZI_MEMORY_PROFILE_ENABLED="false",
        HF_HUB_OFFLINE="1",
    )
    env.update(settings)
    return env


async def spawn_fuzi(
    *args: str,
    cwd: Path,
    env: dict[str, str],
    stdin: int | None = None,
    stdout: int | None = asyncio.subprocess.PIPE,
    stderr: int | None = asyncio.subprocess.PIPE,
) -> asyncio.subprocess.Process:
    """`python -m bot ARGS` in `cwd` with `env`."""
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", *args, cwd=cwd, env=env, stdin=stdin, stdout=stdout, stderr=stderr
    )


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
