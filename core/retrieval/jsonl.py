"""The data files' JSON Lines: every non-blank line of a folder's `*.jsonl`, files in name order."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path


def jsonl_rows(folder: Path, error: type[ValueError]) -> Iterator[tuple[str, object]]:
    """("file:line", parsed value) for each non-blank line of `folder`/*.jsonl; nothing for a missing
    folder. A line that is not JSON raises `error` naming file:line."""
    if not folder.is_dir():
        return
    for path in sorted(folder.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                yield where, json.loads(line)
            except json.JSONDecodeError as exc:
                raise error(f"{where}: not JSON ({exc.msg})") from exc
