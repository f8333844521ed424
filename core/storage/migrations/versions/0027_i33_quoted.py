"""The messages a question quoted are kept with it: `message.quoted` (JSON, nullable).

A follow-up ("那他说得对吗？") needs what the question before it quoted: the window and the
summary read it from here (core/memory/quotes.py `dump_quotes` / `load_quotes`). Rows written before this
revision quoted nothing as far as the store knows (NULL).

Revision ID: 0027_i33_quoted
Revises: 0026_i33_parts
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0027_i33_quoted"
down_revision = "0026_i33_parts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("message", sa.Column("quoted", sa.String(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("message") as batch:
        batch.drop_column("quoted")
