"""A chat may narrow its daily passage to some books: `chat_settings.books` (comma-separated book
ids, nullable: every book).

Revision ID: 0028_i35_books
Revises: 0027_i33_quoted
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0028_i35_books"
down_revision = "0027_i33_quoted"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("chat_settings", sa.Column("books", sa.String(length=100), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("chat_settings") as batch:
        batch.drop_column("books")
