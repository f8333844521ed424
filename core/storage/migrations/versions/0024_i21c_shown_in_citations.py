"""Where a reply is shown gets its own column; one table for the footnotes of replies.

`message.shown_in` (``<platform>:<chat>:<message>``, core/shown_in.py, indexed) takes over what the
assistant rows kept in `account` and what `reply_shown` (issue 22) kept a second time for reactions:
the references move there, `account` is empty again for the assistant and `reply_shown` goes.
`reply_cited` (issue 22: the references alone) and `reply_citations` (issue 23: the footnotes, for
the web history) held the same thing; `reply_citations` stays, `reply_cited`'s rows move into it
(numbered in order, with their reply's chat) and the table goes. Downgrade restores both: the
references go back to `account` and into `reply_shown`, `reply_cited` is made again from every reply's footnotes, and
`reply_citations` keeps only the web chats' rows, as the web adapter wrote them.

Revision ID: 0024_i21c
Revises: 0023_i23
Create Date: 2026-12-01
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0024_i21c"
down_revision = "0023_i23"
branch_labels = None
depends_on = None

message = sa.table(
    "message",
    sa.column("chat_key", sa.String),
    sa.column("account", sa.String),
    sa.column("role", sa.String),
    sa.column("trace_id", sa.String),
    sa.column("shown_in", sa.String),
    sa.column("created_at"),
)
reply_citations = sa.table(
    "reply_citations", sa.column("trace_id", sa.String), sa.column("chat_key", sa.String), sa.column("data", sa.String)
)
reply_cited = sa.table("reply_cited", sa.column("trace_id", sa.String), sa.column("refs", sa.String))
reply_shown = sa.table(
    "reply_shown", sa.column("shown_in", sa.String), sa.column("trace_id", sa.String), sa.column("created_at")
)
assistant = message.c.role == "assistant"


def upgrade() -> None:
    op.add_column("message", sa.Column("shown_in", sa.String(length=200), nullable=True))
    op.execute(
        message.update().where(assistant, message.c.account != "").values(shown_in=message.c.account, account="")
    )
    bind = op.get_bind()
    for where, trace_id in list(bind.execute(sa.select(reply_shown.c.shown_in, reply_shown.c.trace_id))):
        unnoted = sa.and_(assistant, message.c.trace_id == trace_id, message.c.shown_in.is_(None))
        bind.execute(message.update().where(unnoted).values(shown_in=where))
    op.drop_index("ix_reply_shown_trace_id", table_name="reply_shown")
    op.drop_table("reply_shown")
    op.create_index("ix_message_shown_in", "message", ["shown_in"])
    kept = set(bind.execute(sa.select(reply_citations.c.trace_id)).scalars())
    moved = [
        {"trace_id": trace_id, "chat_key": _chat_of(bind, trace_id), "data": _footnotes(refs)}
        for trace_id, refs in bind.execute(sa.select(reply_cited.c.trace_id, reply_cited.c.refs))
        if trace_id not in kept  # the web's row has the passage ids too
    ]
    if moved:
        op.bulk_insert(reply_citations, moved)
    op.drop_table("reply_cited")


def downgrade() -> None:
    op.create_table(
        "reply_cited",
        sa.Column("trace_id", sa.String(length=64), nullable=False),
        sa.Column("refs", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("trace_id"),
    )
    bind = op.get_bind()
    rows = list(bind.execute(sa.select(reply_citations.c.trace_id, reply_citations.c.data)))
    if rows:
        op.bulk_insert(reply_cited, [{"trace_id": t, "refs": _refs(data)} for t, data in rows])
    op.execute(reply_citations.delete().where(sa.not_(reply_citations.c.chat_key.startswith("web:"))))
    op.create_table(
        "reply_shown",
        sa.Column("shown_in", sa.String(length=200), nullable=False),
        sa.Column("trace_id", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("shown_in"),
    )
    op.create_index("ix_reply_shown_trace_id", "reply_shown", ["trace_id"])
    noted = sa.select(message.c.shown_in, message.c.trace_id, message.c.created_at).where(
        assistant, message.c.shown_in.is_not(None)
    )
    shown = {where: {"shown_in": where, "trace_id": t, "created_at": at} for where, t, at in bind.execute(noted)}
    if shown:
        op.bulk_insert(reply_shown, list(shown.values()))
    op.execute(message.update().where(assistant, message.c.shown_in.is_not(None)).values(account=message.c.shown_in))
    op.drop_index("ix_message_shown_in", table_name="message")
    with op.batch_alter_table("message") as batch:
        batch.drop_column("shown_in")


def _chat_of(bind: sa.Connection, trace_id: str) -> str:
    query = sa.select(message.c.chat_key).where(assistant, message.c.trace_id == trace_id).limit(1)
    return bind.execute(query).scalar() or ""


def _footnotes(refs: str) -> str:
    lines = [ref for ref in (refs or "").split("\n") if ref]
    return json.dumps([{"n": n, "id": "", "ref": ref} for n, ref in enumerate(lines, 1)], ensure_ascii=False)


def _refs(data: str) -> str:
    return "\n".join(f.get("ref", "") for f in json.loads(data or "[]"))
