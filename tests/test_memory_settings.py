"""Memory settings: every FUZI_MEMORY_* field reaches MemoryConfig; a bad value names its variable."""

from __future__ import annotations

from dataclasses import fields

import pytest

from bot.settings import SettingsError, load_settings
from bot.settings.memory import MemorySettings
from core.memory import MemoryConfig


def test_config_mirrors_settings(monkeypatch):
    assert {f.name for f in fields(MemoryConfig)} == set(MemorySettings.model_fields)
    assert MemoryConfig.from_settings(MemorySettings()) == MemoryConfig()  # same defaults
    monkeypatch.setenv("FUZI_MEMORY_WINDOW_ROUNDS", "7")
    monkeypatch.setenv("FUZI_MEMORY_PROFILE_ENABLED", "false")
    config = MemoryConfig.from_settings(load_settings().memory)
    assert config.window_rounds == 7 and config.profile_enabled is False


def test_reserve_must_fit_the_budget(monkeypatch):
    monkeypatch.setenv("FUZI_MEMORY_PROMPT_BUDGET_TOKENS", "1000")
    monkeypatch.setenv("FUZI_MEMORY_TOOL_RESERVE_TOKENS", "1000")
    with pytest.raises(SettingsError, match="FUZI_MEMORY_TOOL_RESERVE_TOKENS"):
        load_settings()
