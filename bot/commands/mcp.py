"""`fuzi mcp`: Fuzi's classics tools over the Model Context Protocol on stdio (bot/mcp_server.py).

stdout carries the protocol only: logs and first-start progress go to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
from contextlib import AsyncExitStack
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.settings import Settings

TOOL_TIMEOUT_S = 15.0  # one call, as in the agent


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mcp", help="serve the classics tools over the Model Context Protocol on stdio")
    p.set_defaults(func=_mcp)


def _mcp(args: argparse.Namespace) -> int:
    from bot.logging import setup_logging
    from bot.settings import load_settings

    settings = load_settings()
    setup_logging(settings)  # stderr: stdout is the protocol
    asyncio.run(_serve(settings))
    return 0


async def _serve(settings: Settings) -> None:
    from bot.errors import StartupError
    from bot.first_start import keyword_first, prepare_data
    from bot.mcp_server import mcp_server
    from bot.retrieval_factory import build_retriever
    from core.language.script import ScriptConverter
    from core.retrieval.retriever import RetrieverNotReady
    from core.retrieval.simplified import SimplifiedQueries
    from core.retrieval.store import IndexMismatchError, IndexMissingError
    from core.tools import Toolset, classics_tools

    async with AsyncExitStack() as stack:
        first_build = await prepare_data(settings)  # a fresh FUZI_HOME: the keyword route while the index is built
        try:
            if first_build is not None:
                retriever = await keyword_first(settings, None, None, first_build, stack)
            else:
                retriever = await build_retriever(settings)
        except (IndexMissingError, IndexMismatchError, RetrieverNotReady) as exc:
            raise StartupError(str(exc)) from None
        tools = Toolset(classics_tools(SimplifiedQueries(retriever, ScriptConverter())), timeout_s=TOOL_TIMEOUT_S)
        await mcp_server(tools).run_stdio_async()
