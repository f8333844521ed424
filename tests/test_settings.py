"""Settings: every variable documented, malformed values stop with one line naming the variable."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.settings import DEPRECATED, RETIRED, SettingsError, deprecated_in_use, doc, load_settings

ROOT = Path(__file__).resolve().parents[1]


def test_env_example_is_generated_from_the_settings_classes():
    committed = (ROOT / ".env.example").read_text(encoding="utf-8")
    assert committed == doc.render(), f".env.example is out of date: run `{doc.COMMAND}` and commit it"


def test_every_setting_has_a_one_line_reason_and_there_are_few():
    names = [name for _, name, _ in doc.variables()]
    assert len(names) == len(set(names))
    assert len(names) <= 90, f"{len(names)} settings: make the knobs no operator changes constants (docs/settings.md)"
    for _, name, field in doc.variables():
        assert field.description and "\n" not in field.description and len(field.description) <= 120, name


def test_retired_variables_are_no_settings_and_are_documented():
    names = {name for _, name, _ in doc.variables()}
    assert not (set(RETIRED) | set(DEPRECATED)) & names
    documented = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    assert [name for name in RETIRED if name not in documented] == []
    assert f"**{len(names)}** now" in documented  # the count docs/settings.md gives is the current one


def test_a_retired_variable_names_the_file_that_defines_its_constant():
    """The warning line sends people to `<file> <CONSTANT>`: the constant must be assigned there."""
    wrong = []
    for name, where in RETIRED.items():
        found = re.match(r"([\w/]+\.py) ([A-Z][A-Z0-9_]+)\b", where)
        if found is None:  # a class's default or a parameter: checked by reading, not here
            continue
        path, constant = ROOT / found[1], found[2]
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        if not re.search(rf"^{constant}\s*(:[^=\n]*)?=", text, re.M):
            wrong.append(f"{name}: {where}")
    assert wrong == []


def test_check_mode_names_the_command(tmp_path):
    stale = tmp_path / ".env.example"
    stale.write_text("# FUZI_HOME=./var\n", encoding="utf-8")
    assert doc.main(["--check", "--output", str(stale)]) == 1
    assert doc.main(["--output", str(stale)]) == 0 and doc.main(["--check", "--output", str(stale)]) == 0


def test_malformed_value_names_the_variable(monkeypatch):
    monkeypatch.setenv("FUZI_LLM_TIMEOUT_S", "soon")
    try:
        load_settings()
    except SettingsError as exc:
        assert str(exc).startswith("invalid setting FUZI_LLM_TIMEOUT_S:")
        assert "\n" not in str(exc)
    else:
        raise AssertionError("a malformed timeout was accepted")


@pytest.mark.processes
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
    dotenv = tmp_path / ".env"
    dotenv.write_text("FUZI_GUARD_MAX_INPUT_CHARS=100\nFUZI_LLM_MODEL=x\n", encoding="utf-8")
    lines = deprecated_in_use({"FUZI_GUARD_MAX_IN_FLIGHT": "2"}, dotenv)
    assert len(lines) == 2 and all(line.startswith("warning: FUZI_GUARD_") for line in lines)
    assert "FUZI_ENGINE_MAX_INPUT_CHARS" in " ".join(lines)
    assert deprecated_in_use({}, tmp_path / "missing.env") == []
    documented = (ROOT / ".env.example").read_text(encoding="utf-8")
    assert not [name for name in DEPRECATED if name in documented]  # removed from the documented settings


def test_a_retired_setting_still_set_gets_one_line_naming_its_constant(tmp_path):
    lines = deprecated_in_use({"FUZI_RETRIEVAL_FUSION": "rrf", "TELEGRAM_TYPING_REFRESH_S": "3"}, tmp_path / ".env")
    assert len(lines) == 2
    assert lines[0].startswith("warning: FUZI_RETRIEVAL_FUSION is deprecated and ignored: now a constant: core/")
    assert "TYPING_REFRESH_S = 4.5" in lines[1]


@pytest.mark.processes
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
