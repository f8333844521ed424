"""The model per chat: which models a chat may pick, and the one its current reply's calls use.

`ModelChoice` holds the default (FUZI_LLM_MODEL) and the models the operator allows
(FUZI_LLM_MODELS, on the same endpoint). The engine reads the chat's stored model with its settings,
`pick`s the one to use (a model no longer allowed falls back to the default) and sets `chat_model`
inside the reply's own task: the client (core/llm/client.py) sends every call of that task, and of
the background work it starts, to that model. Nothing else is shared: another chat's task has its
own context, so one chat's choice never reaches another.
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from dataclasses import dataclass

chat_model: ContextVar[str | None] = ContextVar("fuzi_chat_model", default=None)
"""The model the current reply's LLM calls use (None: the client's own, FUZI_LLM_MODEL)."""

MODEL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,99}$")
"""A model name: ASCII letters, digits and ``. _ : / @ + -``, at most 100 characters (no spaces)."""


def valid_model(name: str) -> bool:
    """True for a name the endpoint could serve (see MODEL_NAME)."""
    return bool(MODEL_NAME.match(name))


def parse_models(text: str) -> tuple[str, ...]:
    """FUZI_LLM_MODELS: comma-separated names, blanks dropped, order kept, duplicates once;
    ValueError naming the first bad one."""
    names: list[str] = []
    for raw in text.split(","):
        name = raw.strip()
        if not name:
            continue
        if not valid_model(name):
            raise ValueError(f"not a model name: {name[:40]!r} (letters, digits and . _ : / @ + -, at most 100)")
        if name not in names:
            names.append(name)
    return tuple(names)


@dataclass(frozen=True)
class ModelChoice:
    """The default model and the ones a chat may pick instead.

    Attributes:
        default: FUZI_LLM_MODEL, used by every chat that picked nothing (always allowed).
        allowed: FUZI_LLM_MODELS (the default need not be listed).
    """

    default: str
    allowed: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """Every model a chat may use, the default first."""
        return (self.default, *(m for m in self.allowed if m != self.default))

    @property
    def choosable(self) -> bool:
        """True when there is something to choose (FUZI_LLM_MODELS lists a model besides the default)."""
        return len(self.names) > 1

    def pick(self, stored: str | None) -> str:
        """The model a chat's calls use: its stored one while it is allowed, else the default."""
        return stored if stored is not None and stored in self.names else self.default

    def is_allowed(self, name: str) -> bool:
        return name in self.names
