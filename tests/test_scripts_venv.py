"""scripts/_venv.sh: uv first (pip's settings passed on), pip as the fallback; quiet when the install works,
the whole log when it fails. A stand-in `uv` in the venv keeps these tests offline."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[1]


def _project(tmp_path: Path, uv_script: str) -> None:
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "_venv.sh", tmp_path / "scripts" / "_venv.sh")
    subprocess.run(["python3", "-m", "venv", str(tmp_path / ".venv")], check=True)
    uv = tmp_path / ".venv" / "bin" / "uv"
    uv.write_text("#!/bin/sh\n" + uv_script)
    uv.chmod(0o755)


def _ensure(tmp_path: Path, extras: str = "", **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", f'source scripts/_venv.sh && ensure_venv "{extras}"'],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        env={**os.environ, "PIP_FIND_LINKS": "/nowhere/wheels", "PIP_CONSTRAINT": "/nowhere/c.txt", **env},
    )


def test_a_failed_install_falls_back_to_pip_then_prints_the_whole_log_and_fails(tmp_path):
    _project(tmp_path, 'echo "uv: cannot install" >&2; exit 2\n')
    (tmp_path / "pyproject.toml").write_text('[project\nname = "broken"\n')  # not TOML: pip stops before any download
    proc = _ensure(tmp_path)
    assert proc.returncode != 0
    assert proc.stdout == ""
    err = proc.stderr
    assert (
        err.startswith("setting up .venv") and "installing Fuzi's dependencies failed; the install log follows:" in err
    )
    log = (tmp_path / ".venv" / "install.log").read_text()
    assert "uv: cannot install" in log and "falling back to pip" in log
    assert log.strip() and log.strip() in err  # the whole log, not a summary
    assert not (tmp_path / ".venv" / ".fuzi-installed").exists()  # the next run tries again


def test_uv_installs_with_pips_settings_and_pip_is_not_needed(tmp_path):
    _project(tmp_path, 'echo "$@" > "$(dirname "$0")/uv-args"\n')
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "ok"\nversion = "0"\n')
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "answer.py").write_text("ANSWER = 42\n")
    proc = _ensure(tmp_path, "ocr")
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr
    args = (tmp_path / ".venv" / "bin" / "uv-args").read_text().split()
    assert args[:2] == ["pip", "install"] and "--compile-bytecode" not in args  # compiled after the install
    assert args[args.index("--find-links") + 1] == "/nowhere/wheels"
    assert args[args.index("--constraint") + 1] == "/nowhere/c.txt"
    assert args[-2:] == ["-e", f"{tmp_path}[ocr]"]
    # jieba's sdist is built into a stored wheel (unpacked at once: no deflate of its dictionaries)
    assert args[args.index("--config-settings-package") + 1] == "jieba:--build-option=--compression=stored"
    assert (tmp_path / ".venv" / ".fuzi-installed").exists()
    assert _ensure(tmp_path, "ocr").stderr == ""  # installed: the next start says nothing
    # the venv is byte-compiled in the background, once: the marker says the compile finished
    deadline = time.monotonic() + 60
    while not (tmp_path / ".venv" / ".fuzi-compiled").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list((tmp_path / "core" / "__pycache__").glob("answer.*.pyc"))  # Fuzi's own modules too


def test_fuzis_own_modules_are_compiled_while_uv_installs(tmp_path):
    """The venv's interpreter compiles bot/, core/, adapters/ and data/ while the install runs (they
    need nothing installed): the stand-in uv sees the compiled module appear before it returns."""
    _project(
        tmp_path,
        "for i in $(seq 100); do ls core/__pycache__/answer.*.pyc >/dev/null 2>&1 && "
        "echo seen > .venv/compiled-during-install && break; sleep 0.1; done\n",
    )
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "ok"\nversion = "0"\n')
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "answer.py").write_text("ANSWER = 42\n")
    proc = _ensure(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / ".venv" / "compiled-during-install").exists()


def test_a_pip_conf_value_on_several_lines_reaches_uv_item_by_item_with_pips_ca_bundle(tmp_path):
    """pip.conf's documented form for several extra indexes (one per line) and its `cert`: `pip config
    list` prints the value with a literal "\\n" between the items; uv gets each as its own argument,
    and the CA bundle as SSL_CERT_FILE (uv does not read pip's settings itself)."""
    _project(
        tmp_path, 'printf "%s\\n" "$@" > "$(dirname "$0")/uv-args"; echo "$SSL_CERT_FILE" > "$(dirname "$0")/uv-cert"\n'
    )
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "ok"\nversion = "0"\n')
    conf = tmp_path / "pip.conf"
    conf.write_text(
        "[global]\nextra-index-url =\n    https://a.example/simple\n    https://b.example/simple\n"
        "cert = /nowhere/ca.pem\n"
    )
    proc = _ensure(tmp_path, "", PIP_CONFIG_FILE=str(conf))
    assert proc.returncode == 0, proc.stderr
    args = (tmp_path / ".venv" / "bin" / "uv-args").read_text().splitlines()
    extra = [args[i + 1] for i, a in enumerate(args) if a == "--extra-index-url"]
    assert extra == ["https://a.example/simple", "https://b.example/simple"], args
    assert (tmp_path / ".venv" / "bin" / "uv-cert").read_text().strip() == "/nowhere/ca.pem"


def test_without_extras_the_lock_installs_unresolved_and_a_failed_check_resolves_instead(tmp_path):
    """requirements.lock: `--no-deps -r requirements.lock -e ROOT`, then `uv pip check`; when the check
    fails (a dependency the lock does not hold), the resolving install of pyproject.toml runs."""
    _project(
        tmp_path,
        'echo "$*" >> "$(dirname "$0")/uv-calls"; case "$2" in check) exit "$(cat "$(dirname "$0")/check")";; esac\n',
    )
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "ok"\nversion = "0"\n')
    (tmp_path / "requirements.lock").write_text("six==1.16.0\n")
    calls, check = tmp_path / ".venv" / "bin" / "uv-calls", tmp_path / ".venv" / "bin" / "check"
    check.write_text("0")
    assert _ensure(tmp_path).returncode == 0
    first, second = calls.read_text().splitlines()
    assert first.startswith("pip install") and first.endswith(
        f"--no-deps -r {tmp_path}/requirements.lock -e {tmp_path}"
    )
    assert second.startswith("pip check")
    calls.unlink()
    check.write_text("1")
    (tmp_path / "requirements.lock").write_text("six==1.17.0\n")  # a new lock: the venv is installed again
    assert _ensure(tmp_path).returncode == 0
    lines = calls.read_text().splitlines()
    assert len(lines) == 3 and lines[1].startswith("pip check") and lines[2].endswith(f"-e {tmp_path}")
    assert all(
        "--config-settings-package jieba:--build-option=--compression=stored " in line for line in (first, lines[2])
    )
    assert "--no-deps" not in lines[2]
    assert "resolving pyproject.toml's requirements instead" in (tmp_path / ".venv" / "install.log").read_text()
