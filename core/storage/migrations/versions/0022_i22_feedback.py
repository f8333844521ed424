"""Reactions as feedback: where each reply is shown, each person's verdict on it, and a trace index.

`reply_shown` maps a platform message (`telegram:<chat>:<message>`) to the reply it shows, so a
reaction there finds the reply; `reply_feedback` keeps one verdict ("up"/"down") per reply and
person; `reply_cited` keeps the references an answer cited; `ix_message_trace_id` lets `fuzi feedback` find a reply's question and answer by trace.

Revision ID: 0022_i22
Revises: 0020_i20
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022_i22"
down_revision = "0020_i20"
branch_labels = None
depends_on = None


def upgrade() -> None:
    now = sa.DateTime(timezone=True)
    op.create_table(
        "reply_shown",
        sa.Column("shown_in", sa.String(length=200), nullable=False),
        sa.Column("trace_id", sa.String(length=64), nullable=False),
        sa.Column("created_at", now, nullable=False),
        sa.PrimaryKeyConstraint("shown_in"),
    )
    op.create_index("ix_reply_shown_trace_id", "reply_shown", ["trace_id"])
    op.create_table(
        "reply_feedback",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("trace_id", sa.String(length=64), nullable=False),
        sa.Column("platform", sa.String(length=32), nullable=False),
        sa.Column("account", sa.String(length=200), nullable=False),
        sa.Column("verdict", sa.String(length=8), nullable=False),
        sa.Column("emoji", sa.String(length=32), nullable=False),
        sa.Column("created_at", now, nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("trace_id", "account", name="uq_reply_feedback_trace_account"),
    )
    op.create_index("ix_reply_feedback_trace_id", "reply_feedback", ["trace_id"])
    op.create_index("ix_reply_feedback_created_at", "reply_feedback", ["created_at"])
    op.create_table(
        "reply_cited",
        sa.Column("trace_id", sa.String(length=64), nullable=False),
        sa.Column("refs", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("trace_id"),
    )
    op.create_index("ix_message_trace_id", "message", ["trace_id"])


def downgrade() -> None:
    op.drop_index("ix_message_trace_id", table_name="message")
    op.drop_table("reply_cited")
    op.drop_table("reply_feedback")
    op.drop_table("reply_shown")
