"""The inbox: every platform update is kept from its acknowledgement until its handling ended (core/inbox).

Revision ID: 0025_i33_inbox
Revises: 0024_i21c
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0025_i33_inbox"
down_revision = "0024_i21c"
branch_labels = None
depends_on = None


def upgrade() -> None:
    now = sa.DateTime(timezone=True)
    op.create_table(
        "inbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("platform", sa.String(length=32), nullable=False),
        sa.Column("key", sa.String(length=128), nullable=False),
        sa.Column("payload", sa.String(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("received_at", now, nullable=False),
        sa.Column("heartbeat_at", now, nullable=False),
        sa.Column("closed_at", now, nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("platform", "key", name="uq_inbox_platform_key"),
    )
    op.create_index("ix_inbox_status_heartbeat", "inbox", ["status", "heartbeat_at"])
    op.create_index("ix_inbox_owner_status", "inbox", ["owner", "status"])
    op.create_index("ix_inbox_closed_at", "inbox", ["closed_at"])


def downgrade() -> None:
    op.drop_index("ix_inbox_closed_at", table_name="inbox")
    op.drop_index("ix_inbox_owner_status", table_name="inbox")
    op.drop_index("ix_inbox_status_heartbeat", table_name="inbox")
    op.drop_table("inbox")
