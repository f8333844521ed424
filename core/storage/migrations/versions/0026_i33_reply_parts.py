"""`reply_part` maps the other messages of an answer to its reply (the later parts of a split answer,
a Discord interaction's response and follow-ups), so a reaction on any of them is feedback on it;
the reply's own message stays in `message.shown_in`.

Revision ID: 0026_i33_parts
Revises: 0025_i33_inbox
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0026_i33_parts"
down_revision = "0025_i33_inbox"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reply_part",
        sa.Column("shown_in", sa.String(length=200), nullable=False),
        sa.Column("trace_id", sa.String(length=64), nullable=False),
        sa.Column("part", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("shown_in"),
    )
    op.create_index("ix_reply_part_trace_id", "reply_part", ["trace_id"])


def downgrade() -> None:
    op.drop_index("ix_reply_part_trace_id", table_name="reply_part")
    op.drop_table("reply_part")
