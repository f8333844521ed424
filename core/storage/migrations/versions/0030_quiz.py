"""Group quizzes: the quizzes posted, each chat's open quiz, each person's one scored answer; the
daily quiz's time and zone in `chat_settings`.

Revision ID: 0030_quiz
Revises: 0029_recite
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0030_quiz"
down_revision = "0029_recite"
branch_labels = None
depends_on = None


def upgrade() -> None:
    now = sa.DateTime(timezone=True)
    op.create_table(
        "quiz",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_key", sa.String(length=200), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("passage_id", sa.String(length=32), nullable=False),
        sa.Column("question", sa.String(), nullable=False),
        sa.Column("options", sa.String(), nullable=False),
        sa.Column("correct", sa.Integer(), nullable=False),
        sa.Column("explanation", sa.String(length=400), nullable=False),
        sa.Column("poll_id", sa.String(length=64), nullable=True),
        sa.Column("message_id", sa.String(length=64), nullable=True),
        sa.Column("origin", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", now, nullable=False),
        sa.Column("closes_at", now, nullable=False),
        sa.Column("closed_at", now, nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("poll_id", name="uq_quiz_poll_id"),
    )
    op.create_index("ix_quiz_chat_key_created_at", "quiz", ["chat_key", "created_at"])
    op.create_table(
        "quiz_open",
        sa.Column("chat_key", sa.String(length=200), nullable=False),
        sa.Column("quiz_id", sa.Integer(), nullable=False),
        sa.Column("closes_at", now, nullable=False),
        sa.PrimaryKeyConstraint("chat_key"),
    )
    op.create_table(
        "quiz_answer",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("quiz_id", sa.Integer(), nullable=False),
        sa.Column("chat_key", sa.String(length=200), nullable=False),
        sa.Column("account", sa.String(length=200), nullable=False),
        sa.Column("name", sa.String(length=256), nullable=False),
        sa.Column("option", sa.Integer(), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("answered_at", now, nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("quiz_id", "account", name="uq_quiz_answer_quiz_account"),
    )
    op.create_index("ix_quiz_answer_chat_key_answered_at", "quiz_answer", ["chat_key", "answered_at"])
    op.create_index("ix_quiz_answer_account", "quiz_answer", ["account"])
    with op.batch_alter_table("chat_settings") as batch:
        batch.add_column(sa.Column("quiz_time", sa.String(length=5), nullable=True))
        batch.add_column(sa.Column("quiz_zone", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("chat_settings") as batch:
        batch.drop_column("quiz_zone")
        batch.drop_column("quiz_time")
    op.drop_index("ix_quiz_answer_account", table_name="quiz_answer")
    op.drop_index("ix_quiz_answer_chat_key_answered_at", table_name="quiz_answer")
    op.drop_table("quiz_answer")
    op.drop_table("quiz_open")
    op.drop_index("ix_quiz_chat_key_created_at", table_name="quiz")
    op.drop_table("quiz")
