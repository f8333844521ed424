"""Web: token revocations, chat titles and the citations of each reply (issue 23).

Revision ID: 0023_i23
Revises: 0022_i22
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023_i23"
down_revision = "0022_i22"
branch_labels = None
depends_on = None


def upgrade() -> None:
    now = sa.DateTime(timezone=True)
    op.create_table(
        "token_revocation",
        sa.Column("user", sa.String(length=64), nullable=False),
        sa.Column("revoked_at", now, nullable=False),
        sa.PrimaryKeyConstraint("user"),
    )
    op.create_table(
        "chat_title",
        sa.Column("chat_key", sa.String(length=200), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("updated_at", now, nullable=False),
        sa.PrimaryKeyConstraint("chat_key"),
    )
    op.create_table(
        "reply_citations",
        sa.Column("trace_id", sa.String(length=64), nullable=False),
        sa.Column("chat_key", sa.String(length=200), nullable=False),
        sa.Column("data", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("trace_id"),
    )
    op.create_index("ix_reply_citations_chat_key", "reply_citations", ["chat_key"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_reply_citations_chat_key", table_name="reply_citations")
    op.drop_table("reply_citations")
    op.drop_table("chat_title")
    op.drop_table("token_revocation")
