"""Scheduled posts: claims (one per chat, kind and local date), the passage rotation, the digest store.

Revision ID: 0020_i20
Revises: 0019_i19
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020_i20"
down_revision = "0019_i19"
branch_labels = None
depends_on = None


def upgrade() -> None:
    now = sa.DateTime(timezone=True)
    op.create_table(
        "schedule_claim",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_key", sa.String(length=200), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("local_date", sa.Date(), nullable=False),
        sa.Column("due_at", now, nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("claimed_at", now, nullable=False),
        sa.Column("finished_at", now, nullable=True),
        sa.Column("passage_id", sa.String(length=32), nullable=True),
        sa.Column("detail", sa.String(length=200), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("chat_key", "kind", "local_date", name="uq_schedule_claim_chat_kind_date"),
    )
    op.create_table(
        "schedule_seen",
        sa.Column("chat_key", sa.String(length=200), nullable=False),
        sa.Column("passage_id", sa.String(length=32), nullable=False),
        sa.Column("seen_at", now, nullable=False),
        sa.PrimaryKeyConstraint("chat_key", "passage_id"),
    )
    op.create_table(
        "digest_message",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_key", sa.String(length=200), nullable=False),
        sa.Column("speaker", sa.String(length=256), nullable=False),
        sa.Column("text", sa.String(), nullable=False),
        sa.Column("created_at", now, nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_digest_message_chat_key_created_at", "digest_message", ["chat_key", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_digest_message_chat_key_created_at", table_name="digest_message")
    op.drop_table("digest_message")
    op.drop_table("schedule_seen")
    op.drop_table("schedule_claim")
