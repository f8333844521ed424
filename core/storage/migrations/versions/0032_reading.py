"""The reading room: each person's last read passage and their bookmarks (issue 37).

Revision ID: 0032_reading
Revises: 0031_operators
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0032_reading"
down_revision = "0031_operators"
branch_labels = None
depends_on = None


def upgrade() -> None:
    now = sa.DateTime(timezone=True)
    op.create_table(
        "reading_position",
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("passage_id", sa.String(length=64), nullable=False),
        sa.Column("updated_at", now, nullable=False),
        sa.PrimaryKeyConstraint("person_id"),
    )
    op.create_table(
        "bookmark",
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("passage_id", sa.String(length=64), nullable=False),
        sa.Column("created_at", now, nullable=False),
        sa.PrimaryKeyConstraint("person_id", "passage_id"),
    )


def downgrade() -> None:
    op.drop_table("bookmark")
    op.drop_table("reading_position")
