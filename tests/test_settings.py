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


def test_deprecated_settings_still_set_get_one_warning_line_each(tmp_path):
    from bot.settings import DEPRECATED, deprecated_in_use

    dotenv = tmp_path / ".env"
    dotenv.write_text("FUZI_GUARD_MAX_INPUT_CHARS=100\nFUZI_LLM_MODEL=x\n", encoding="utf-8")
    lines = deprecated_in_use({"FUZI_GUARD_MAX_IN_FLIGHT": "2"}, dotenv)
    assert len(lines) == 2 and all(line.startswith("warning: FUZI_GUARD_") for line in lines)
    assert "FUZI_ENGINE_MAX_INPUT_CHARS" in " ".join(lines)
    assert deprecated_in_use({}, tmp_path / "missing.env") == []
    documented = (ROOT / ".env.example").read_text(encoding="utf-8")
    assert not [name for name in DEPRECATED if name in documented]  # removed from the documented settings


def test_a_deprecated_setting_does_not_stop_the_cli(tmp_path):
    env = {**os.environ, "FUZI_GUARD_MAX_IN_FLIGHT": "3", "FUZI_HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "bot", "search", "学而", "--mode", "keyword", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert "warning: FUZI_GUARD_MAX_IN_FLIGHT is deprecated and ignored" in result.stderr
