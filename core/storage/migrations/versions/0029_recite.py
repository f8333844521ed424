"""Recitation: each person's cards (FSRS state), their reviews, the open card per chat, reminders.

Revision ID: 0029_recite
Revises: 0028_i35_books
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0029_recite"
down_revision = "0028_i35_books"
branch_labels = None
depends_on = None


def upgrade() -> None:
    at = sa.DateTime(timezone=True)
    op.create_table(
        "recite_card",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("passage_id", sa.String(length=32), nullable=False),
        sa.Column("added_at", at, nullable=False),
        sa.Column("due", at, nullable=False),
        sa.Column("state", sa.String(), nullable=False),
        sa.Column("reviews", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("person_id", "passage_id", name="uq_recite_card_person_passage"),
    )
    op.create_index("ix_recite_card_person_id", "recite_card", ["person_id"])
    op.create_index("ix_recite_card_due", "recite_card", ["due"])
    op.create_table(
        "recite_review",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.Integer(), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("rating", sa.String(length=8), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("reviewed_at", at, nullable=False),
        sa.Column("before", sa.String(), nullable=False),
        sa.Column("due", at, nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_recite_review_card_id", "recite_review", ["card_id"])
    op.create_index("ix_recite_review_person_id", "recite_review", ["person_id"])
    op.create_table(
        "recite_open",
        sa.Column("chat_key", sa.String(length=200), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.Integer(), nullable=False),
        sa.Column("line", sa.String(), nullable=False),
        sa.Column("phrase", sa.String(), nullable=False),
        sa.Column("created_at", at, nullable=False),
        sa.Column("expires_at", at, nullable=False),
        sa.PrimaryKeyConstraint("chat_key", "person_id"),
    )
    op.create_table(
        "recite_reminder",
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("chat_key", sa.String(length=200), nullable=False),
        sa.Column("at", sa.String(length=5), nullable=False),
        sa.Column("zone", sa.String(length=64), nullable=False),
        sa.Column("since", at, nullable=False),
        sa.PrimaryKeyConstraint("person_id"),
    )


def downgrade() -> None:
    op.drop_table("recite_reminder")
    op.drop_table("recite_open")
    op.drop_index("ix_recite_review_person_id", table_name="recite_review")
    op.drop_index("ix_recite_review_card_id", table_name="recite_review")
    op.drop_table("recite_review")
    op.drop_index("ix_recite_card_due", table_name="recite_card")
    op.drop_index("ix_recite_card_person_id", table_name="recite_card")
    op.drop_table("recite_card")
