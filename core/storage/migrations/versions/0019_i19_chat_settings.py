"""Per-chat settings (script, daily passage, digest) and the log of who changed them.

The chat's skill stays where it was (`chat.skill`); a chat without a `chat_settings` row has the
defaults.

Revision ID: 0019_i19
Revises: 0018_i18
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019_i19"
down_revision = "0018_i18"
branch_labels = None
depends_on = None


def upgrade() -> None:
    now = sa.DateTime(timezone=True)
    op.create_table(
        "chat_settings",
        sa.Column("chat_key", sa.String(length=200), nullable=False),
        sa.Column("script", sa.String(length=16), nullable=True),
        sa.Column("daily_time", sa.String(length=5), nullable=True),
        sa.Column("daily_zone", sa.String(length=64), nullable=True),
        sa.Column("digest", sa.Boolean(), nullable=False),
        sa.Column("updated_at", now, nullable=False),
        sa.PrimaryKeyConstraint("chat_key"),
    )
    op.create_table(
        "chat_setting_change",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_key", sa.String(length=200), nullable=False),
        sa.Column("field", sa.String(length=16), nullable=False),
        sa.Column("old_value", sa.String(length=128), nullable=True),
        sa.Column("new_value", sa.String(length=128), nullable=True),
        sa.Column("account", sa.String(length=200), nullable=False),
        sa.Column("created_at", now, nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_chat_setting_change_chat_key_id", "chat_setting_change", ["chat_key", "id"])


def downgrade() -> None:
    op.drop_index("ix_chat_setting_change_chat_key_id", table_name="chat_setting_change")
    op.drop_table("chat_setting_change")
    op.drop_table("chat_settings")
