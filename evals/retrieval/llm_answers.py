"""The LLM reranker measured without an endpoint: its prompts recorded, answered elsewhere, replayed.

`python -m evals rerank-prompts FILE … --out PROMPTS.jsonl` runs every query of FILE … as `fuzi eval`
does, with the reranker FUZI_RETRIEVAL_RERANKER=llm builds (core/retrieval/rerank.py) over a book of
prompts with no answers: it keeps each distinct prompt (`{"sha", "prompt"}`) and fails the call, so the
search keeps its fused order. Whatever stands in for the model answers each prompt as written, as `{"sha", "answer"}` lines.
`python -m evals eval FILE … --rerank-answers ANSWERS.jsonl …` runs the same searches with the reranker
over a book that answers each prompt from those lines: the figures are the product's prompt, parser
and ordering with that model's answers. A prompt with no answer (the pool has changed since it was
recorded) fails like a model error, the search keeps its fused order, and the count goes to stderr.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from core.llm.types import Completion, Message, StreamEvent


def prompt_sha(prompt: str) -> str:
    """The key of a prompt in both files: its sha256, 16 hex digits."""
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:16]


class PromptBook:
    """An LLM without an endpoint, for the reranker: it keeps every distinct prompt it is sent (`prompts`,
    by sha) and answers those it holds an answer for; any other call fails and is counted (`missing`)."""

    def __init__(self, answers: dict[str, str] | None = None) -> None:
        self.answers = answers or {}
        self.prompts: dict[str, str] = {}
        self.missing = 0

    async def complete(self, messages: list[Message], **_: Any) -> Completion:
        prompt = messages[-1]["content"]
        sha = prompt_sha(prompt)
        self.prompts.setdefault(sha, prompt)
        if sha not in self.answers:
            self.missing += 1
            raise RuntimeError("no recorded answer for this prompt")
        return Completion(text=self.answers[sha])

    async def stream(self, messages: list[Message], **_: Any) -> AsyncGenerator[StreamEvent, None]:
        raise NotImplementedError("the reranker only completes")
        yield  # an async generator, as the port's stream is


def load_answers(paths: list[Path]) -> dict[str, str]:
    """`{"sha", "answer"}` lines of every file, by sha (a later file's answer wins)."""
    answers: dict[str, str] = {}
    for path in paths:
        for line in path.read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                answers[str(row["sha"])] = str(row["answer"])
    return answers


def replaying_opener(paths: list[Path]):
    """A retriever opener for `run_eval_files` whose LLM reranker replays the answers in `paths` (none:
    it only records the prompts), and the book behind it."""
    from bot.retrieval_factory import build_retriever
    from core.retrieval.rerank import LLMReranker

    book = PromptBook(load_answers(paths))

    async def opener(settings):
        return await build_retriever(settings, reranker=LLMReranker(book))

    return opener, book


def record(args: argparse.Namespace) -> int:
    """Write the reranker's distinct prompts for every query of `args.file` to `args.out`."""
    from bot.commands.retrieval import run_with_retriever
    from core.retrieval.metrics import load_queries, run_eval

    opener, book = replaying_opener([])

    async def go(settings) -> int:
        retriever = await opener(settings)
        for path in args.file:
            await run_eval(retriever, load_queries(Path(path)), k=args.k, mode="hybrid", corpus=args.corpus)
        lines = [json.dumps({"sha": sha, "prompt": p}, ensure_ascii=False) for sha, p in book.prompts.items()]
        Path(args.out).write_text("".join(line + "\n" for line in lines), "utf-8")
        print(f"{len(lines)} prompts → {args.out}", file=sys.stderr)
        return 0

    return run_with_retriever(go)
