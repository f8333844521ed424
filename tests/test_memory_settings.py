"""Memory settings: every FUZI_MEMORY_* field reaches MemoryConfig; a bad value names its variable."""

from __future__ import annotations

from dataclasses import fields

import pytest

from bot.settings import SettingsError, load_settings
from bot.settings.memory import MemorySettings
from core.memory import MemoryConfig


def test_config_mirrors_settings(monkeypatch):
    assert set(MemorySettings.model_fields) <= {f.name for f in fields(MemoryConfig)}  # the rest are constants
    assert MemoryConfig.from_settings(MemorySettings()) == MemoryConfig()  # same defaults
    monkeypatch.setenv("FUZI_MEMORY_WINDOW_ROUNDS", "7")
    monkeypatch.setenv("FUZI_MEMORY_PROFILE_ENABLED", "false")
    config = MemoryConfig.from_settings(load_settings().memory)
    assert config.window_rounds == 7 and config.profile_enabled is False


def test_budget_leaves_room_beyond_the_tool_reserve(monkeypatch):
    assert MemorySettings.model_fields["prompt_budget_tokens"].metadata[0].ge > MemoryConfig().tool_reserve_tokens
    monkeypatch.setenv("FUZI_MEMORY_PROMPT_BUDGET_TOKENS", "1000")
    with pytest.raises(SettingsError, match="FUZI_MEMORY_PROMPT_BUDGET_TOKENS"):
        load_settings()
