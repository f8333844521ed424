"""A tool is a typed async function; its JSON Schema comes from its signature and its docstring.

    @tool
    async def search_classics(ctx: ToolContext, query: str, k: Annotated[int, Field(ge=1, le=10)] = 5) -> dict:
        '''Search the Analects and the Book of Songs. Use for … Do not use for …

        Args:
            query: what to look for, in the user's words.
            k: how many passages to return (1-10).
        '''
        return {"passages": [{"id": "lunyu:3.22", "ref": "《论语·八佾》第22章", "text": "…"}]}

The parameters (the `ToolContext` one excluded) become a pydantic model: its JSON Schema is the tool's
input schema (OpenAI's `parameters`, MCP's `inputSchema`) and it validates what the model writes
before the function runs (core/tools/schema.py). The first paragraph of the docstring is the
description, the `Args:` entries describe the parameters.

A function returns a JSON-serialisable dict or a str. A dict with key "passages" (a list of
{"id", "ref", "text", …}) carries citable passages; the engine numbers them (core/citations.py).
It raises `ToolError` for a failure the model should read; any other exception is logged and the
model only learns that the tool failed (core/tools/toolset.py).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, overload

from pydantic import BaseModel

from core.tools.schema import (
    build_arguments_model,
    context_parameter,
    input_schema,
    parse_docstring,
    validate_arguments,
)

ToolOutput = dict[str, Any] | str
ToolFunction = Callable[..., Awaitable[ToolOutput]]


@dataclass(frozen=True)
class ToolContext:
    """What a tool knows about the turn it serves.

    Attributes:
        person_id: canonical person id (linked platform accounts share it).
        platform: "console", "telegram", "discord", "web" or "mcp".
        chat_id: the conversation on that platform.
        is_group: True in groups, guild channels and threads.
        trace_id: ties the tool's log lines to the message.
        account: the sender's `platform:user_id` (memory records where a fact was said).
        is_admin: the sender is in FUZI_ADMIN_IDS.
    """

    person_id: int
    platform: str
    chat_id: str
    is_group: bool
    trace_id: str
    account: str = ""
    is_admin: bool = False

    @property
    def chat_key(self) -> str:
        """`platform:chat_id`, unique across platforms (as `Incoming.chat_key`)."""
        return f"{self.platform}:{self.chat_id}"


class ToolError(Exception):
    """A failure the model should read: `str(exc)` and `hint` go into the observation."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.hint = hint


@dataclass(frozen=True)
class Tool:
    """A typed async function the model may call (build one with `@tool` or `Tool.from_function`).

    Attributes:
        name: what the model calls it.
        description: what it is for and when not to use it (the docstring's first paragraph).
        input_schema: JSON Schema of the arguments.
        function: the async function.
        arguments: the pydantic model that validates and coerces the arguments.
        context_param: the parameter that receives the `ToolContext` (None: it takes none).
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    function: ToolFunction
    arguments: type[BaseModel]
    context_param: str | None

    @classmethod
    def from_function(cls, fn: ToolFunction, *, name: str | None = None, description: str | None = None) -> Tool:
        """The tool `fn` is: schema from its signature, description from its docstring (or `description`)."""
        tool_name = name or fn.__name__
        if not inspect.iscoroutinefunction(fn):
            raise TypeError(f"tool {tool_name!r} must be an async function")
        text = description or parse_docstring(fn.__doc__).summary
        if not text:
            raise ValueError(f"tool {tool_name!r} needs a description (docstring or description=)")
        ctx_param = context_parameter(fn, ToolContext)
        model = build_arguments_model(fn, tool_name, ctx_param)
        return cls(tool_name, text, input_schema(model), fn, model, ctx_param)

    def openai(self) -> dict[str, Any]:
        """The tool in OpenAI's `tools` format."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.input_schema},
        }

    def validate(self, arguments: Any) -> dict[str, Any]:
        """The clean keyword arguments; raises `ArgumentError` with one line per problem."""
        return validate_arguments(self.arguments, arguments)

    async def run(self, arguments: Any, ctx: ToolContext) -> ToolOutput:
        """Validate `arguments` and await the function (raises what `validate` and the function raise)."""
        kwargs = self.validate(arguments)
        if self.context_param:
            kwargs[self.context_param] = ctx
        return await self.function(**kwargs)


@overload
def tool(fn: ToolFunction, /) -> Tool: ...
@overload
def tool(*, name: str | None = None, description: str | None = None) -> Callable[[ToolFunction], Tool]: ...


def tool(
    fn: ToolFunction | None = None, /, *, name: str | None = None, description: str | None = None
) -> Tool | Callable[[ToolFunction], Tool]:
    """Make `fn` a `Tool` (usable as `@tool` or `@tool(name=…, description=…)`)."""
    if fn is not None:
        return Tool.from_function(fn, name=name, description=description)
    return lambda f: Tool.from_function(f, name=name, description=description)
