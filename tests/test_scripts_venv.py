"""scripts/_venv.sh: quiet when the install works, the whole pip log when it fails."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_failed_install_prints_the_pip_log_and_fails(tmp_path):
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "_venv.sh", tmp_path / "scripts" / "_venv.sh")
    (tmp_path / "pyproject.toml").write_text('[project\nname = "broken"\n')  # not TOML: pip stops before any download
    proc = subprocess.run(
        ["bash", "-c", 'source scripts/_venv.sh && ensure_venv ""'],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert proc.returncode != 0
    assert proc.stdout == ""
    err = proc.stderr
    assert err.startswith("setting up .venv") and "installing Fuzi's dependencies failed; the pip log follows:" in err
    log = (tmp_path / ".venv" / "install.log").read_text()
    assert log.strip() and log.strip() in err  # the whole log, not a summary
    assert not (tmp_path / ".venv" / ".fuzi-installed").exists()  # the next run tries again
