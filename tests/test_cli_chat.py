"""`fuzi chat` piped, end to end: a real process, the real openai SDK, the fake OpenAI server."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_process import child_env, spawn_fuzi

pytestmark = pytest.mark.processes


async def run_chat(tmp_path: Path, lines: list[str], *args: str, **env: str) -> tuple[int, str, str]:
    base = child_env(tmp_path / "home", **env)
    proc = await spawn_fuzi("chat", *args, cwd=tmp_path, env=base, stdin=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate("\n".join(lines).encode() + b"\n"), timeout=100)
    return proc.returncode, out.decode(), err.decode()


def respond(body: dict):
    """The scripted model: look up 管仲 with the tool, then answer citing what came back."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        return "子曰：“管仲之器小哉！”[1] 又有人言其知礼[7]。"
    if body.get("tools") and "管仲" in str(last["content"]):
        return [("search_classics", {"query": "管仲之器小哉", "k": 3})]
    return "学而时习之，不亦说乎？"


async def test_two_questions_get_streamed_cited_answers(tmp_path, fake_llm):
    fake_llm.set_default(respond)
    code, out, err = await run_chat(
        tmp_path,
        ["孔子怎么看管仲？", "学习有什么乐趣？"],
        FUZI_LLM_BASE_URL=fake_llm.base_url,
        FUZI_LLM_API_KEY="sk-test-key-123456",
    )
    assert code == 0, err
    answer, footnote, second = out.index("管仲之器小哉"), out.index("[1] 《论语·八佾》第22章"), out.index("学而时习之")
    assert answer < footnote < second  # each reply printed whole, footnotes after its text, in order
    assert "[7]" not in out  # a citation number the model invented is never shown
    streamed = [r for r in fake_llm.requests if r.get("stream")]
    assert streamed and all(r.get("tools") for r in streamed[:1])  # L0: the agent offered tools
    assert "sk-test-key-123456" not in err


async def test_endpoint_down_answers_from_the_index(tmp_path, fake_llm):
    fake_llm.strict = True  # every request: 500
    code, out, err = await run_chat(
        tmp_path,
        ["巧言令色"],
        FUZI_LLM_BASE_URL=fake_llm.base_url,
        FUZI_LLM_API_KEY="sk-test",
        FUZI_LLM_RETRY_ATTEMPTS="1",
    )
    assert code == 0, err
    assert "巧言令色，鲜矣仁" in out and "《论语·学而》第3章" in out
    assert len(fake_llm.requests) == 2  # L0 then L1, one attempt each, then L2 from the index


async def test_no_key_says_so_once_and_answers_from_the_texts(tmp_path):
    code, out, err = await run_chat(tmp_path, ["执子之手", "关关雎鸠"], "--user", "zilu", "--chat", "hall", "--group")
    assert code == 0, err
    assert out.count("未配置语言模型") == 1
    assert "《诗经·国风·邶风·击鼓》" in out and "《诗经·国风·周南·关雎》" in out
    # first start, stderr not a terminal: the index build reports in plain lines, no bar escapes
    assert "first start: building the passage index: 1132/1132 passages" in err and "\x1b[" not in err
    assert "added the sentence vectors" in err  # the index `fuzi index` builds, not a lesser one


async def test_an_index_without_sentence_vectors_gets_them_once_in_the_background(tmp_path):
    code, out, err = await run_chat(tmp_path, ["巧言令色"])
    assert code == 0 and "added the sentence vectors" in err, err
    sentence_table = tmp_path / "home" / "lancedb" / "passages_sentences.lance"
    shutil.rmtree(sentence_table)  # as the first starts before this change left it
    code, out, err = await run_chat(tmp_path, ["巧言令色"])
    assert code == 0 and "巧言令色，鲜矣仁" in out, err
    assert "adding sentence vectors to the index in the background (once)" in err
    assert "first start" not in err and "added the sentence vectors" in err and sentence_table.is_dir()
    code, out, err = await run_chat(tmp_path, ["巧言令色"])
    assert code == 0 and "sentence vectors" not in err, err


async def test_books_added_to_the_corpus_folder_join_the_index_at_the_next_start(tmp_path):
    """A folder with only the two old files answers from them and names the missing books in one line;
    once the other three are there, the next start brings the index up to them in the background."""
    from tests.helpers_corpus import corpus_dir

    two = tmp_path / "two-books"
    two.mkdir()
    for name in ("lunyu.json", "shijing.json"):
        shutil.copy(corpus_dir() / name, two / name)
    code, out, err = await run_chat(tmp_path, ["孟子说民为贵是什么意思？"], FUZI_CORPUS_DIR=str(two))
    assert code == 0, err
    assert "《孟子》、《大学》、《中庸》 not in the corpus folder" in err
    assert "《孟子》不在其中" in out and "《孟子·尽心下》" not in out
    code, out, err = await run_chat(tmp_path, ["巧言令色"])  # all five files
    assert code == 0 and "巧言令色，鲜矣仁" in out, err
    assert "the corpus has 1132 passages, the index 817: updating it in the background" in err
    assert "updating the passage index" in err and "indexed 1132 passages" in err
    code, out, err = await run_chat(tmp_path, ["孟子说民为贵是什么意思？"])
    assert code == 0 and "《孟子·尽心下》第14章" in out and "updating" not in err, err


async def test_the_embedded_warm_start_imports_neither_redis_nor_alembic_nor_lancedb(tmp_path):
    """One process on SQLite with no FUZI_REDIS_URL: redis-py and Alembic (together 0.15–0.35 s of a
    2-core machine's ~3 s warm start) are not imported once the database is at the newest revision,
    nor LanceDB (~0.9 s) nor pyarrow (~30 ms; only writes build Arrow tables) once the tables' state
    is saved (core/retrieval/table_state.py), nor bm25s and scipy (a saved keyword index is scored
    without them), nor rich and tornado (bot/lean_imports.py), nor PyYAML, prometheus_client,
    SQLAlchemy's PostgreSQL dialect and `limits` (the passage look-ups' limiter: at the first look-up)."""
    code, out, err = await run_chat(tmp_path, ["巧言令色"])  # the first start: migrates, builds the index
    assert code == 0 and "巧言令色，鲜矣仁" in out, err
    code, out, err = await run_chat(tmp_path, ["巧言令色"], PYTHONPROFILEIMPORTTIME="1")
    assert code == 0 and "巧言令色，鲜矣仁" in out, err
    imported = {line.rsplit("|", 1)[-1].strip() for line in err.splitlines() if line.startswith("import time:")}
    assert "sqlalchemy" in imported and "numpy" in imported  # the listing is complete
    assert not {name for name in imported if name.split(".")[0] in ("redis", "alembic", "lancedb", "pyarrow")}
    assert "bm25s" not in imported and "scipy" not in imported  # a saved keyword index is scored without them
    # nor what only an LLM (the prompts' YAML), /metrics, PostgreSQL or a passage look-up needs
    assert not {"yaml", "prometheus_client", "sqlalchemy.dialects.postgresql", "limits"} & imported
    assert "core.media.clean" not in imported  # OCR's text cleaning: at the first photo
    assert not {"core.quiz.models", "core.quiz.service"} & imported  # at the first /quiz, /leaderboard, /forget all
    # structlog without rich, tenacity without tornado (bot/lean_imports.py): a hidden package's
    # failed import is listed by name alone, never its modules
    assert "structlog.dev" in imported and "tenacity.asyncio" in imported
    assert not {name for name in imported if name.startswith(("rich.", "pygments", "tenacity.tornadoweb"))}


def test_a_reader_that_stops_early_gets_one_line_and_no_traceback(tmp_path):
    """`fuzi chat < questions | head`: the replies after the reader left are not an error to dump.
    (`head -n 0` leaves before the first reply, so the closed pipe is met on every machine.)"""
    (tmp_path / "questions.txt").write_text("巧言令色\n关关雎鸠\n学而时习之\n", encoding="utf-8")
    script = f"{sys.executable} -m bot chat < questions.txt 2> err.txt | head -n 0; echo ${{PIPESTATUS[0]}}"
    env = child_env(tmp_path / "home")
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=100)
    err = (tmp_path / "err.txt").read_text(encoding="utf-8")
    assert done.stdout.strip() == "1", err
    assert "the output was closed; stopped answering" in err and "Traceback" not in err


def test_a_start_collects_no_cycles_until_its_command_is_ready(monkeypatch):
    """bot/cli.py turns the cyclic collector off for a start: a command that sets
    `collects_once_started` turns it back on itself (`fuzi chat`, once its engine is open, with what
    the start made frozen), any other command runs with it on, and `main` never returns with it off."""
    import argparse
    import gc

    from bot import cli
    from bot.commands.chat import collect_from_now

    seen: dict[str, bool] = {}

    def command(name: str):
        def run(_args) -> int:
            seen[name] = gc.isenabled()
            return 0

        return run

    def parser() -> argparse.ArgumentParser:
        p = argparse.ArgumentParser()
        sub = p.add_subparsers(dest="command", required=True)
        sub.add_parser("quick").set_defaults(func=command("quick"))
        sub.add_parser("ready-later").set_defaults(func=command("ready-later"), collects_once_started=True)
        return p

    assert cli.build_parser().parse_args(["chat"]).collects_once_started is True
    monkeypatch.setattr(cli, "build_parser", parser)
    assert cli.main(["quick"]) == 0 and cli.main(["ready-later"]) == 0
    assert seen == {"quick": True, "ready-later": False} and gc.isenabled()
    gc.disable()
    try:
        collect_from_now()
        assert gc.isenabled() and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.enable()
