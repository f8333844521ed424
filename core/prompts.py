"""Task prompts (conversation summary, profile extraction …) read from YAML files in a directory.

A prompt file ``<dir>/<name>.yaml`` holds::

    name: summary
    version: 2
    temperature: 0.2
    max_tokens: 400
    system: |
      …
    user: |
      … {placeholders} …

``render(**values)`` fills the ``{placeholders}`` of ``user`` (and ``system``) with ``str.format``;
values are inserted verbatim, so braces inside user text are safe.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from string import Formatter

from core.llm.types import Message


class PromptError(Exception):
    """A prompt file is missing or malformed; the message names the file and the problem."""


@dataclass(frozen=True)
class TaskPrompt:
    """One task prompt with its sampling settings.

    Attributes:
        name: file stem, e.g. "summary".
        version: bumped whenever the wording changes (logged with each call).
        temperature: sampling temperature for this task.
        max_tokens: completion limit for this task.
        system: system message template.
        user: user message template.
    """

    name: str
    version: int
    temperature: float
    max_tokens: int
    system: str
    user: str

    def fields(self) -> set[str]:
        """Placeholder names used by the templates."""
        names = set()
        for template in (self.system, self.user):
            names |= {f for _, f, _, _ in Formatter().parse(template) if f}
        return names

    def render(self, **values: object) -> list[Message]:
        """The system and user messages with placeholders filled; a missing value is an error."""
        missing = self.fields() - values.keys()
        if missing:
            raise PromptError(f"prompt {self.name}: missing values {sorted(missing)}")
        return [
            {"role": "system", "content": self.system.format(**values)},
            {"role": "user", "content": self.user.format(**values)},
        ]


def load_prompt(directory: Path | str, name: str) -> TaskPrompt:
    """Read and validate ``<directory>/<name>.yaml``.

    Raises:
        PromptError: the file is missing, not YAML, or lacks a field.
    """
    import yaml  # only where a prompt is read: with an LLM (~15 ms of a start without one)

    path = Path(directory) / f"{name}.yaml"
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise PromptError(f"cannot read prompt {path}: {type(exc).__name__}") from None
    if not isinstance(raw, dict):
        raise PromptError(f"prompt {path}: expected a mapping")
    try:
        return TaskPrompt(
            name=str(raw.get("name", name)),
            version=int(raw["version"]),
            temperature=float(raw["temperature"]),
            max_tokens=int(raw["max_tokens"]),
            system=str(raw["system"]),
            user=str(raw["user"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise PromptError(f"prompt {path}: bad or missing field {exc}") from None


def default_prompt_dir() -> Path:
    """``data/prompts`` of this checkout/installation."""
    return Path(__file__).resolve().parent.parent / "data" / "prompts"
