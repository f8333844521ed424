"""`python -m evals COMMAND`: the lab's commands (evals/README.md). The lab imports the product; the
product never imports the lab (tests/test_boundaries.py)."""

from __future__ import annotations

import argparse
import sys

from evals.guard import cli as guard
from evals.retrieval import ceiling
from evals.retrieval import cli as retrieval


def main(argv: list[str] | None = None) -> int:
    """Parse `argv` and run the chosen command; its exit status."""
    parser = argparse.ArgumentParser(prog="python -m evals", description="Fuzi's evaluation and training lab")
    sub = parser.add_subparsers(dest="command", required=True)
    retrieval.register(sub)
    ceiling.register(sub)
    guard.register(sub)
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
