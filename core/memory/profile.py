"""The inferred profile: extracted by the LLM from a batch of exchanges, validated, merged, stored.

A profile is a guess (lower trust than facts): how the user addresses Fuzi, their level, their
interests and preferred language. Anything the model returns outside that small schema is
dropped; an extraction that fails or returns nothing usable changes nothing.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import structlog
from sqlalchemy import Engine, bindparam, update
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from core.llm.types import LLM
from core.memory.blocks import clean_speaker
from core.memory.models import Profile, utcnow
from core.prompts import TaskPrompt
from core.storage.base import conflict_insert
from core.storage.conflict import begin_write, retry_on_conflict
from core.storage.models import Message

log = structlog.get_logger(__name__)

LEVELS = ("beginner", "intermediate", "advanced")
MAX_INTERESTS = 8
MAX_BATCH = 10
"""Most exchanges in one extraction request (more waiting go in the next request)."""
_KEPT_MARKS = 1000
"""People whose last mark written here is remembered (an older batch read before it is read again)."""
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


@dataclass(frozen=True)
class Exchange:
    """A person's question (by its message id and trace) and the reply to it ("" while none is stored)."""

    question_id: int
    question: str
    reply: str
    trace_id: str = ""


@dataclass(frozen=True)
class Batch:
    """What one extraction covers, as read: the profile's JSON text ("" none), its mark, and the
    exchanges after the mark, oldest first."""

    stored: str
    upto: int
    exchanges: list[Exchange]


def unextracted(person_id: Any, after: Any, limit: int):
    """The first `limit` of the person's answered questions (any chat) after `after`, the profile's
    mark, oldest first: id, text, trace id and the reply's text (NULL while none is stored). `after`
    is a number or a column expression."""
    reply = aliased(Message)
    answer = (
        select(reply.text)
        .where(
            reply.trace_id == Message.trace_id,
            reply.chat_key == Message.chat_key,
            reply.role == "assistant",
            Message.trace_id != "",
        )
        .order_by(col(reply.id).desc())
        .limit(1)
        .scalar_subquery()
    )
    # `status || ''`: SQLite would otherwise walk ix_message_status_role, whose range after the mark
    # holds everybody's messages, instead of the person's own (ix_message_person_id_id)
    status = col(Message.status).concat("")
    asked = (Message.person_id == person_id, Message.role == "user", status == "ok", col(Message.id) > after)
    columns = (col(Message.id), col(Message.text), col(Message.trace_id), answer.label("reply"))
    return select(*columns).where(*asked).order_by(col(Message.id)).limit(limit)


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


_P = Profile.__table__  # type: ignore[attr-defined]
_ADVANCE = (
    update(_P)
    .where(
        _P.c.person_id == bindparam("b_person"),
        _P.c.extracted_upto == bindparam("b_upto"),
        _P.c.data == bindparam("b_stored"),
    )
    .returning(_P.c.person_id)
)
"""A batch's merge and mark, when the row is still as the batch read it (built once)."""


@functools.cache
def _first(dialect: str) -> Any:
    """The person's first profile row, unless another extraction wrote one first (built once per dialect)."""
    return conflict_insert(dialect)(_P).on_conflict_do_nothing().returning(_P.c.person_id)


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
        merged = await asyncio.to_thread(
            retry_on_conflict, functools.partial(self._merge_locked, person_id, update), person=person_id
        )
        assert merged is not None  # no mark to hold: always written
        return merged

    def _merge_locked(
        self, person_id: int, update: dict[str, Any], mark: tuple[int, int] | None = None
    ) -> dict[str, Any] | None:
        """Merge ``update`` under the row's lock (FOR UPDATE: two processes merging at once both
        count) and return the result. With `mark` (the mark read, the new one), only while the
        profile's mark is still the one read, then moved; None, nothing written, once it has moved."""
        with Session(self._engine) as s:
            begin_write(s)
            row = s.get(Profile, person_id, with_for_update=True)
            if mark is not None and (row.extracted_upto if row is not None else 0) != mark[0]:
                s.rollback()
                return None
            row = row or Profile(person_id=person_id)
            merged = merge_profile(json.loads(row.data), update)
            row.data, row.updated_at = json.dumps(merged, ensure_ascii=False), utcnow()
            if mark is not None:
                row.extracted_upto = mark[1]
            s.add(row)
            s.commit()
            return merged

    def batch(self, person_id: int, limit: int) -> Batch:
        """The stored profile, its mark and the first `limit` exchanges after the mark (two
        statements: the row, then the questions after the mark it holds). A turn reads the same
        with its context (core/memory/reads.py); this read is for what that one did not cover."""
        with Session(self._engine) as s:
            row = s.get(Profile, person_id)
            upto = row.extracted_upto if row is not None else 0
            rows = s.execute(unextracted(person_id, upto, limit)).all()
        exchanges = [Exchange(r.id, r.text, r.reply or "", r.trace_id) for r in rows]
        return Batch(row.data if row is not None else "", upto, exchanges)

    async def advance(self, person_id: int, batch: Batch, found: dict[str, Any]) -> dict[str, Any] | None:
        """Merge what the batch's extraction `found` and mark its exchanges extracted; the merged
        profile, or None when another extraction took these exchanges first (nothing is written).

        One statement when the row is still as the batch read it (UPDATE … WHERE mark and data are
        the ones read, or INSERT … ON CONFLICT DO NOTHING when there was none); otherwise, under the
        row's lock, merged into what is there now, if the mark has not moved.
        """
        old = json.loads(batch.stored) if batch.stored else {}
        merged = merge_profile(old, found)
        data, upto = json.dumps(merged, ensure_ascii=False), batch.exchanges[-1].question_id

        values = {"data": data, "extracted_upto": upto, "updated_at": utcnow()}

        def run() -> bool:
            with self._engine.begin() as c:
                if batch.stored:
                    mine = {"b_person": person_id, "b_upto": batch.upto, "b_stored": batch.stored}
                    return c.execute(_ADVANCE, values | mine).first() is not None
                return c.execute(_first(c.dialect.name), values | {"person_id": person_id}).first() is not None

        if await asyncio.to_thread(run):
            return merged
        locked = functools.partial(self._merge_locked, person_id, found, (batch.upto, upto))
        return await asyncio.to_thread(retry_on_conflict, locked, person=person_id)

    async def delete(self, person_id: int) -> bool:
        """Forget the person's profile (and its mark); True when it held anything."""

        def run() -> bool:
            with Session(self._engine) as s:
                row = s.get(Profile, person_id)
                if row is None:
                    return False
                s.delete(row)
                s.commit()
                return json.loads(row.data) != {}

        return await asyncio.to_thread(run)


class ProfileExtractor:
    """Asks the LLM what a person's latest exchanges say about them and merges the answer.

    Extraction goes in batches: once `batch_exchanges` of the person's answered questions (in any
    chat) wait after the profile's mark, they and their replies go out in one request, and the mark
    moves past them with the merged profile (`ProfileStore.advance`). The mark lives on the profile
    row, so what waits survives a restart and is seen by every process; a batch another extraction
    took first is dropped unwritten, so no exchange is extracted into the profile twice.

    Args:
        llm: the LLM port (normally the circuit-breaker-wrapped client).
        prompt: the "profile" task prompt (data/prompts/profile.yaml).
        store: where profiles live.
        batch_exchanges: fewest waiting exchanges worth a request.
        max_input_chars: each side of an exchange is cut to this length.
    """

    def __init__(
        self,
        llm: LLM,
        prompt: TaskPrompt,
        store: ProfileStore,
        *,
        batch_exchanges: int = 1,
        max_input_chars: int = 1000,
    ):
        self._llm = llm
        self._prompt = prompt
        self._store = store
        self.batch_exchanges = max(1, batch_exchanges)
        self.max_exchanges = max(self.batch_exchanges, MAX_BATCH)
        self._max = max_input_chars
        self._marks: OrderedDict[int, int] = OrderedDict()  # person → the mark this process last wrote

    async def extract(self, person_id: int, read: Batch | None = None, *, max_rounds: int = 5) -> int:
        """Extract from the waiting exchanges once there are `batch_exchanges` of them; returns how
        many were extracted. The caller holds the person's lock.

        `read`: the batch as the turn read it with its context (no read here), unless this process
        has moved the mark past it since; otherwise, and for a backlog of more than one request,
        the batch is read here, fresh. An answer that holds nothing usable still moves the mark
        (those exchanges said nothing); a failed request raises whatever the LLM raised and leaves
        them waiting for the next batch.
        """
        extracted = 0
        for _ in range(max_rounds):
            batch = read if read is not None and read.upto >= self._marks.get(person_id, 0) else None
            read = None
            if batch is None:
                batch = await asyncio.to_thread(self._store.batch, person_id, self.max_exchanges)
            if len(batch.exchanges) < self.batch_exchanges:
                break
            found = await self._ask(batch) or {}
            merged = await self._store.advance(person_id, batch, found)
            if merged is None:
                log.info("profile_taken", person=person_id, exchanges=len(batch.exchanges))
                break
            self._marks[person_id] = batch.exchanges[-1].question_id
            self._marks.move_to_end(person_id)
            if len(self._marks) > _KEPT_MARKS:
                self._marks.popitem(last=False)
            extracted += len(batch.exchanges)
            log.info(
                "profile_updated",
                person=person_id,
                exchanges=len(batch.exchanges),
                keys=sorted(found),
                prompt_version=self._prompt.version,
            )
            if len(batch.exchanges) < self.max_exchanges:
                break
        return extracted

    async def _ask(self, batch: Batch) -> dict[str, Any] | None:
        old = json.loads(batch.stored) if batch.stored else {}
        exchanges = "\n\n".join(
            f"用户：{e.question[: self._max]}\n助手：{e.reply[: self._max]}" for e in batch.exchanges
        )
        messages = self._prompt.render(existing=json.dumps(old, ensure_ascii=False), exchange=exchanges)
        completion = await self._llm.complete(
            messages, temperature=self._prompt.temperature, max_tokens=self._prompt.max_tokens
        )
        return parse_profile(completion.text)
