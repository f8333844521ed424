"""A tool's input schema and argument validation, derived from its function's signature.

The function's parameters (the `ctx` parameter excluded) become a pydantic model; its JSON Schema is
the tool's input schema (OpenAI's `parameters`, MCP's `inputSchema`). Arguments the model writes are
validated against the model before the function runs: safe coercions ("5" → 5, "true" → True, 5 → "5")
are applied, anything else is refused with one clear line per problem.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters):\s*$")
_SECTION_HEADER = re.compile(r"^\s*[A-Z][A-Za-z ]*:\s*$")
_PARAM_LINE = re.compile(r"^\s*(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")

_TYPE_WORDS = {
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "int_type": "an integer",
    "float_parsing": "a number",
    "float_type": "a number",
    "bool_parsing": "a boolean (true or false)",
    "bool_type": "a boolean (true or false)",
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "an object",
}


@dataclass(frozen=True)
class Docstring:
    """What a Google-style docstring says: a summary paragraph and per-parameter descriptions."""

    summary: str
    params: dict[str, str]


def parse_docstring(doc: str | None) -> Docstring:
    """Split a Google-style docstring into its first paragraph and its `Args:` entries."""
    lines = inspect.cleandoc(doc or "").splitlines()
    summary: list[str] = []
    for line in lines:
        if not line.strip() or _ARGS_HEADER.match(line) or _SECTION_HEADER.match(line):
            break
        summary.append(line.strip())
    return Docstring(" ".join(summary), _parse_args_section(lines))


def _parse_args_section(lines: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    current: str | None = None
    inside = False
    for line in lines:
        if _ARGS_HEADER.match(line):
            inside = True
            continue
        if not inside:
            continue
        if _SECTION_HEADER.match(line):
            break
        m = _PARAM_LINE.match(line)
        indent = len(line) - len(line.lstrip())
        if m and indent <= 4:
            current = m.group(1).lstrip("*")
            params[current] = m.group(2).strip()
        elif current and line.strip():
            params[current] = (params[current] + " " + line.strip()).strip()
    return params


def context_parameter(fn: Callable[..., Any], context_type: type) -> str | None:
    """Name of the parameter that receives the tool context (annotated so, or named `ctx`)."""
    hints = _hints(fn)
    for name in inspect.signature(fn).parameters:
        if hints.get(name) is context_type or name == "ctx":
            return name
    return None


def build_arguments_model(fn: Callable[..., Any], tool_name: str, skip: str | None) -> type[BaseModel]:
    """A pydantic model whose fields are `fn`'s parameters except `skip` (the context parameter)."""
    hints = _hints(fn)
    doc = parse_docstring(fn.__doc__)
    fields: dict[str, Any] = {}
    for name, param in inspect.signature(fn).parameters.items():
        if name == skip or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(name, Any)
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[name] = (annotation, _field(default, doc.params.get(name)))
    config = ConfigDict(extra="forbid", coerce_numbers_to_str=True, title=tool_name)
    return create_model(f"{tool_name}_arguments", __config__=config, **fields)


def _field(default: Any, description: str | None) -> Any:
    return Field(default, description=description) if description else Field(default)


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    try:
        return get_type_hints(fn, include_extras=True)
    except Exception:  # unresolved forward references: fall back to raw annotations
        return dict(getattr(fn, "__annotations__", {}))


def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema, cleaned for LLM tool use (no titles, explicit `required`)."""
    raw = _strip_titles(model.model_json_schema())
    schema = {"type": "object", "properties": raw.get("properties", {}), "required": raw.get("required", [])}
    schema.update({k: v for k, v in raw.items() if k not in schema and k != "additionalProperties"})
    schema["additionalProperties"] = False
    return schema


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip_titles(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node


class ArgumentError(ValueError):
    """Arguments failed validation; `problems` holds one readable line per problem."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


def validate_arguments(model: type[BaseModel], arguments: Any) -> dict[str, Any]:
    """Validate and coerce `arguments`; return the clean keyword arguments or raise ArgumentError."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ArgumentError([f"arguments must be a JSON object, got {type(arguments).__name__}"])
    try:
        parsed = model.model_validate(arguments)
    except ValidationError as exc:
        raise ArgumentError([_describe(err, model) for err in exc.errors()]) from None
    return {name: getattr(parsed, name) for name in type(parsed).model_fields}


def _describe(err: Mapping[str, Any], model: type[BaseModel]) -> str:
    name = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
    kind = err.get("type", "")
    if kind == "missing":
        return f"missing required argument '{name}'"
    if kind == "extra_forbidden":
        valid = ", ".join(model.model_fields) or "none"
        return f"unexpected argument '{name}' (valid arguments: {valid})"
    shown = repr(err.get("input"))[:60]
    if kind in _TYPE_WORDS:
        return f"argument '{name}' must be {_TYPE_WORDS[kind]}, got {shown}"
    return f"argument '{name}': {err.get('msg', 'invalid value')} (got {shown})"
