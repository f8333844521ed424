"""The operator console and the model per chat: `chat_settings.model` and `reply_stats`.

`chat_settings.model` is the model a chat's LLM calls use (`/settings model NAME`, one of
FUZI_LLM_MODELS; NULL: FUZI_LLM_MODEL). `reply_stats` holds one row per answer, written with its
text: level, model, tokens, latency, passages cited (core/storage/operators.py reads them; with
`ix_message_created_at`, the window of questions). Answers
stored before this revision have no row: the console's figures start here.

Revision ID: 0031_operators
Revises: 0030_quiz
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0031_operators"
down_revision = "0030_quiz"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("chat_settings", sa.Column("model", sa.String(length=100), nullable=True))
    op.create_table(
        "reply_stats",
        sa.Column("trace_id", sa.String(length=64), nullable=False),
        sa.Column("platform", sa.String(length=32), nullable=False),
        sa.Column("chat_key", sa.String(length=200), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=True),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("model", sa.String(length=100), nullable=True),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("first_visible_ms", sa.Integer(), nullable=True),
        sa.Column("final_ms", sa.Integer(), nullable=False),
        sa.Column("cited", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("trace_id"),
    )
    op.create_index("ix_reply_stats_created_at", "reply_stats", ["created_at"], unique=False)
    op.create_index("ix_reply_stats_person_id", "reply_stats", ["person_id"], unique=False)
    op.create_index("ix_message_created_at", "message", ["created_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_message_created_at", table_name="message")
    op.drop_index("ix_reply_stats_person_id", table_name="reply_stats")
    op.drop_index("ix_reply_stats_created_at", table_name="reply_stats")
    op.drop_table("reply_stats")
    with op.batch_alter_table("chat_settings") as batch:
        batch.drop_column("model")
