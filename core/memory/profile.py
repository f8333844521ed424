"""The inferred profile: extracted by the LLM after an exchange, validated, merged, stored.

A profile is a guess (lower trust than facts): how the user addresses Fuzi, their level, their
interests and preferred language. Anything the model returns outside that small schema is
dropped; an extraction that fails or returns nothing usable changes nothing.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import structlog
from sqlalchemy import Engine, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col

from core.llm.types import LLM
from core.memory.blocks import clean_speaker
from core.memory.models import Profile, utcnow
from core.prompts import TaskPrompt
from core.storage.conflict import begin_write, retry_on_conflict

log = structlog.get_logger(__name__)

LEVELS = ("beginner", "intermediate", "advanced")
MAX_INTERESTS = 8
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def _short(value: Any, limit: int) -> str | None:
    if not isinstance(value, str):
        return None
    value = " ".join(value.split())
    return value[:limit] if value and value.lower() not in {"null", "none", "unknown"} else None


def parse_profile(text: str) -> dict[str, Any] | None:
    """The valid part of the model's JSON answer, or None when there is none."""
    match = _JSON_OBJECT.search(text or "")
    if not match:
        return None
    try:
        raw = json.loads(match.group(0))
    except ValueError:
        return None
    if not isinstance(raw, dict):
        return None
    out: dict[str, Any] = {}
    if addressing := _short(raw.get("addressing"), 20):
        out["addressing"] = clean_speaker(addressing, fallback="")
    level = _short(raw.get("level"), 20)
    if level and level.lower() in LEVELS:
        out["level"] = level.lower()
    if language := _short(raw.get("language"), 10):
        out["language"] = language.lower()
    interests = raw.get("interests")
    if isinstance(interests, list):
        cleaned = [i for i in (_short(v, 20) for v in interests) if i]
        if cleaned:
            out["interests"] = cleaned[:MAX_INTERESTS]
    return {k: v for k, v in out.items() if v}


def merge_profile(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """New scalar values replace old ones; interests are united, newest kept, at most 8."""
    merged = {**old, **{k: v for k, v in new.items() if k != "interests"}}
    interests = [i for i in old.get("interests", []) if i not in new.get("interests", [])]
    interests += new.get("interests", [])
    if interests:
        merged["interests"] = interests[-MAX_INTERESTS:]
    return merged


class ProfileStore:
    """Profiles by person id (SQL in worker threads).

    Args:
        engine: the shared SQLAlchemy engine (memory tables created).
    """

    def __init__(self, engine: Engine):
        self._engine = engine

    def _get(self, person_id: int) -> dict[str, Any]:
        with Session(self._engine) as s:
            row = s.get(Profile, person_id)
            return json.loads(row.data) if row else {}

    async def get(self, person_id: int) -> dict[str, Any]:
        """The person's profile ({} when none)."""
        return await asyncio.to_thread(self._get, person_id)

    async def merge(self, person_id: int, update: dict[str, Any]) -> dict[str, Any]:
        """Merge ``update`` into the stored profile and return the result."""

        def run() -> dict[str, Any]:
            with Session(self._engine) as s:  # FOR UPDATE: two processes merging at once both count
                begin_write(s)
                row = s.get(Profile, person_id, with_for_update=True) or Profile(person_id=person_id)
                merged = merge_profile(json.loads(row.data), update)
                row.data = json.dumps(merged, ensure_ascii=False)
                row.updated_at = utcnow()
                s.add(row)
                s.commit()
                return merged

        return await asyncio.to_thread(retry_on_conflict, run, person=person_id)

    async def replace(self, person_id: int, stored: str, merged: dict[str, Any]) -> bool:
        """Write `merged` in one statement if the stored profile is still `stored` (its JSON text as
        read; "" for none: the row is inserted unless one appeared). False: it changed meanwhile."""
        data = json.dumps(merged, ensure_ascii=False)

        def run() -> bool:
            with Session(self._engine) as s:
                if stored:
                    mine = (col(Profile.person_id) == person_id, col(Profile.data) == stored)
                    statement: Any = update(Profile).where(*mine).values(data=data, updated_at=utcnow())
                else:
                    dialect = postgresql if s.get_bind().dialect.name == "postgresql" else sqlite
                    values = {"person_id": person_id, "data": data, "updated_at": utcnow()}
                    statement = dialect.insert(Profile).values(values).on_conflict_do_nothing()
                done = s.execute(statement.returning(col(Profile.person_id))).first() is not None
                s.commit()
                return done

        return await asyncio.to_thread(run)

    async def delete(self, person_id: int) -> bool:
        """Forget the person's profile; True when there was one."""

        def run() -> bool:
            with Session(self._engine) as s:
                row = s.get(Profile, person_id)
                if row is None:
                    return False
                s.delete(row)
                s.commit()
                return True

        return await asyncio.to_thread(run)


class ProfileExtractor:
    """Asks the LLM what one exchange says about the user and merges the answer.

    Args:
        llm: the LLM port (normally the circuit-breaker-wrapped client).
        prompt: the "profile" task prompt (data/prompts/profile.yaml).
        store: where profiles live.
        max_input_chars: each side of the exchange is cut to this length.
    """

    def __init__(self, llm: LLM, prompt: TaskPrompt, store: ProfileStore, *, max_input_chars: int = 1000):
        self._llm = llm
        self._prompt = prompt
        self._store = store
        self._max = max_input_chars

    async def update(
        self, person_id: int, user_text: str, reply_text: str, *, stored: str | None = None
    ) -> dict[str, Any] | None:
        """Extract and merge; returns the new profile, or None when nothing changed.

        `stored`: the profile's JSON text as the turn read it ("" none; None: read it here). Then an
        extraction that adds nothing writes nothing, and a change is one compare-and-set statement
        (`ProfileStore.replace`), merged under a lock only when the profile changed meanwhile.
        """
        old = await self._store.get(person_id) if stored is None else (json.loads(stored) if stored else {})
        exchange = f"用户：{user_text[: self._max]}\n助手：{reply_text[: self._max]}"
        messages = self._prompt.render(existing=json.dumps(old, ensure_ascii=False), exchange=exchange)
        completion = await self._llm.complete(
            messages, temperature=self._prompt.temperature, max_tokens=self._prompt.max_tokens
        )
        found = parse_profile(completion.text)
        if not found:
            log.info("profile_unchanged", person=person_id, prompt_version=self._prompt.version)
            return None
        merged = merge_profile(old, found)
        if stored is not None and merged == old:
            log.info("profile_unchanged", person=person_id, prompt_version=self._prompt.version)
            return None
        if stored is None or not await self._store.replace(person_id, stored, merged):
            merged = await self._store.merge(person_id, found)
        log.info("profile_updated", person=person_id, keys=sorted(found), prompt_version=self._prompt.version)
        return merged
