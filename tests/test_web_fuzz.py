"""The web API fuzzed from its own OpenAPI document: schemathesis (`--checks all`, every phase,
stateful included) against the real app on a real uvicorn (127.0.0.1), with a person's JWT made the
way `fuzi token create` makes it, and a few chats written first so the stateful phase has chats to
list, read, rename and delete. Any failure or server error fails the test; the report names them.

The number of cases is bounded (``--max-examples``, a fixed seed) so the run takes about a minute
on two cores.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import httpx
import pytest

from adapters.web.auth import JwtAuth
from adapters.web.settings import WebSettings
from bot.settings import Settings
from tests.fakes.openai_server import fake_llm  # noqa: F401
from tests.helpers_web import build_retriever, chat_events, web_app

pytestmark = pytest.mark.fuzz

SECRET = "fuzz-secret-0123456789abcdef0123456789ab"
MAX_EXAMPLES = 25
SEED = 33
CHATS = ("main", "a", "b", "c")
CONFIG = """
[checks.negative_data_rejection]
# schemathesis' list plus 413: a schema-violating body that is also over the body limit is refused
# for its size first (413 is documented on every route)
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429", "5xx"]
"""


@pytest.fixture(scope="module")
def retriever(tmp_path_factory):
    return build_retriever(tmp_path_factory.mktemp("lancedb"))


def schemathesis_cli() -> list[str]:
    """The schemathesis CLI of this interpreter's environment."""
    script = Path(sys.executable).with_name("schemathesis")
    return [str(script)] if script.exists() else [sys.executable, "-m", "schemathesis.cli"]


async def fuzz(base: str, token: str, reports: Path) -> tuple[int, str]:
    """Run schemathesis against `base` (in `reports`' folder: it keeps a cache there); (exit code, output)."""
    config = reports.parent / "schemathesis.toml"
    config.write_text(CONFIG, "utf-8")
    command = [
        *schemathesis_cli(),
        "--config-file",
        str(config),
        "run",
        f"{base}/openapi.json",
        "--checks",
        "all",
        "--phases",
        "examples,coverage,fuzzing,stateful",
        "--max-examples",
        str(MAX_EXAMPLES),
        "--seed",
        str(SEED),
        "--workers",
        "1",
        "--request-timeout",
        "20",
        "--header",
        f"Authorization: Bearer {token}",
        "--report",
        "ndjson",
        "--report-dir",
        str(reports),
        "--no-color",
        "--output-truncate",
        "false",
    ]
    env = {**os.environ, "SCHEMATHESIS_HOOKS": "", "NO_COLOR": "1"}
    process = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, env=env, cwd=reports.parent
    )
    output, _ = await asyncio.wait_for(process.communicate(), timeout=240)
    return process.returncode or 0, output.decode("utf-8", "replace")


def failures(reports: Path) -> list[str]:
    """Every failed check and every error in the run's ndjson events, one line each."""
    found = []
    for path in reports.glob("*.ndjson"):
        for line in path.read_text("utf-8").splitlines():
            for kind, data in json.loads(line).items():
                if kind == "ScenarioFinished":
                    found += [_failure(check) for case in data["recorder"].get("checks", {}).values() for check in case]
                    if data["status"] == "error":
                        found.append(f"error in {data['recorder']['label']}")
                elif kind in ("NonFatalError", "FatalError"):
                    found.append(f"{kind}: {json.dumps(data, ensure_ascii=False)[:300]}")
    return [line for line in found if line]


def _failure(check: dict) -> str:
    if check.get("status") != "failure":
        return ""
    failure = (check.get("failure_info") or {}).get("failure") or {}
    return f"{failure.get('code')} {failure.get('title')}: {failure.get('operation')}: {failure.get('message')}"


@pytest.mark.timeout(300)
async def test_schemathesis_finds_nothing(tmp_path, fake_llm, retriever):
    token = JwtAuth(SECRET).issue("ann", 3600)
    settings = Settings(web=WebSettings(jwt_secret=SECRET, per_ip_per_minute=1_000_000))
    async with web_app(tmp_path, fake_llm, retriever, settings=settings) as (base, _, _):
        async with httpx.AsyncClient(timeout=30) as client:  # chats to list, read, rename and delete
            for chat in CHATS:
                await chat_events(
                    client, base, {"message": "何为仁？", "chat": chat}, {"Authorization": f"Bearer {token}"}
                )
        code, output = await fuzz(base, token, tmp_path / "report")
    found = failures(tmp_path / "report")
    assert code == 0 and not found, "\n".join([*found, output[-6000:]])
