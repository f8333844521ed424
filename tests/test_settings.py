"""Settings: every variable documented, malformed values stop with one line naming the variable."""

import os
import re
import subprocess
import sys
from pathlib import Path

from pydantic import AliasChoices
from pydantic_settings import BaseSettings

from bot.settings import Settings, SettingsError, load_settings

ROOT = Path(__file__).resolve().parents[1]


def _variables() -> set[str]:
    names = set()
    for name, field in Settings.model_fields.items():
        cls = field.annotation
        if isinstance(cls, type) and issubclass(cls, BaseSettings):
            prefix = cls.model_config.get("env_prefix", "")
            for sub_name, sub in cls.model_fields.items():
                alias = sub.validation_alias
                names.add(alias.choices[0] if isinstance(alias, AliasChoices) else (prefix + sub_name).upper())
        else:
            names.add(("FUZI_" + name).upper())
    return names


def test_every_variable_is_in_env_example():
    documented = set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(), re.M))
    assert _variables() - documented == set()


def test_malformed_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("FUZI_LLM_TIMEOUT_S", "soon")
    try:
        load_settings()
    except SettingsError as exc:
        assert str(exc).startswith("invalid setting FUZI_LLM_TIMEOUT_S:")
        assert "\n" not in str(exc)
    else:
        raise AssertionError("a malformed timeout was accepted")


def test_cli_prints_one_line_and_no_traceback(tmp_path):
    env = {**os.environ, "FUZI_HOME": str(tmp_path), "FUZI_AGENT_MAX_ROUNDS": "-3"}
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "chat"], input="", capture_output=True, text=True, cwd=ROOT, env=env, timeout=60
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "FUZI_AGENT_MAX_ROUNDS" in lines[0]
