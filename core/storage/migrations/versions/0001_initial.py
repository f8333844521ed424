"""Initial schema: exactly what `SQLModel.metadata.create_all` made before migrations existed.

A database created by that code (tables present, no `alembic_version`) is taken over in place:
each table and index is created only when missing, no row is touched.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _tables() -> list[tuple[str, list, list[tuple[str, list[str], bool]]]]:
    """(table, columns and constraints, indexes as (name, columns, unique)) in creation order."""
    now = sa.DateTime(timezone=True)  # sqlmodel's UTCDateTime: TIMESTAMPTZ on PostgreSQL, DATETIME on SQLite
    return [
        (
            "person",
            [
                sa.Column("id", sa.Integer(), nullable=False),
                sa.Column("created_at", now, nullable=False),
                sa.PrimaryKeyConstraint("id"),
            ],
            [],
        ),
        (
            "account",
            [
                sa.Column("id", sa.Integer(), nullable=False),
                sa.Column("platform", sa.String(length=32), nullable=False),
                sa.Column("platform_user_id", sa.String(length=128), nullable=False),
                sa.Column("person_id", sa.Integer(), nullable=False),
                sa.Column("display_name", sa.String(length=256), nullable=False),
                sa.Column("created_at", now, nullable=False),
                sa.ForeignKeyConstraint(["person_id"], ["person.id"]),
                sa.PrimaryKeyConstraint("id"),
                sa.UniqueConstraint("platform", "platform_user_id", name="uq_account_platform_user"),
            ],
            [("ix_account_person_id", ["person_id"], False)],
        ),
        (
            "chat",
            [
                sa.Column("key", sa.String(length=200), nullable=False),
                sa.Column("platform", sa.String(length=32), nullable=False),
                sa.Column("is_group", sa.Boolean(), nullable=False),
                sa.Column("skill", sa.String(length=64), nullable=True),
                sa.Column("no_llm_noticed", sa.Boolean(), nullable=False),
                sa.Column("created_at", now, nullable=False),
                sa.PrimaryKeyConstraint("key"),
            ],
            [],
        ),
        (
            "message",
            [
                sa.Column("id", sa.Integer(), nullable=False),
                sa.Column("chat_key", sa.String(length=200), nullable=False),
                sa.Column("person_id", sa.Integer(), nullable=True),
                sa.Column("account", sa.String(length=200), nullable=False),
                sa.Column("speaker", sa.String(length=256), nullable=False),
                sa.Column("role", sa.String(length=16), nullable=False),
                sa.Column("text", sa.String(), nullable=False),
                sa.Column("level", sa.Integer(), nullable=True),
                sa.Column("status", sa.String(length=32), nullable=False),
                sa.Column("trace_id", sa.String(length=64), nullable=False),
                sa.Column("created_at", now, nullable=False),
                sa.PrimaryKeyConstraint("id"),
            ],
            [("ix_message_chat_key_id", ["chat_key", "id"], False), ("ix_message_person_id", ["person_id"], False)],
        ),
        (
            "memory_fact",
            [
                sa.Column("id", sa.Integer(), nullable=False),
                sa.Column("person_id", sa.Integer(), nullable=False),
                sa.Column("text", sa.String(), nullable=False),
                sa.Column("scope", sa.String(), nullable=False),
                sa.Column("platform", sa.String(), nullable=False),
                sa.Column("account", sa.String(), nullable=False),
                sa.Column("chat_key", sa.String(), nullable=False),
                sa.Column("created_at", now, nullable=False),
                sa.Column("embedding", sa.String(), nullable=False),
                sa.Column("model", sa.String(), nullable=False),
                sa.PrimaryKeyConstraint("id"),
            ],
            [("ix_memory_fact_person_id", ["person_id"], False)],
        ),
        (
            "memory_profile",
            [
                sa.Column("person_id", sa.Integer(), nullable=False),
                sa.Column("data", sa.String(), nullable=False),
                sa.Column("updated_at", now, nullable=False),
                sa.PrimaryKeyConstraint("person_id"),
            ],
            [],
        ),
        (
            "memory_chat",
            [
                sa.Column("chat_key", sa.String(), nullable=False),
                sa.Column("summary", sa.String(), nullable=False),
                sa.Column("summarized_upto", sa.Integer(), nullable=False),
                sa.Column("window_start", sa.Integer(), nullable=False),
                sa.Column("updated_at", now, nullable=False),
                sa.PrimaryKeyConstraint("chat_key"),
            ],
            [],
        ),
        (
            "memory_link_code",
            [
                sa.Column("id", sa.Integer(), nullable=False),
                sa.Column("person_id", sa.Integer(), nullable=False),
                sa.Column("account", sa.String(), nullable=False),
                sa.Column("salt", sa.String(), nullable=False),
                sa.Column("code_hash", sa.String(), nullable=False),
                sa.Column("expires_at", now, nullable=False),
                sa.Column("used", sa.Boolean(), nullable=False),
                sa.PrimaryKeyConstraint("id"),
            ],
            [("ix_memory_link_code_person_id", ["person_id"], False)],
        ),
        (
            "memory_link_attempt",
            [
                sa.Column("id", sa.Integer(), nullable=False),
                sa.Column("person_id", sa.Integer(), nullable=False),
                sa.Column("at", now, nullable=False),
                sa.PrimaryKeyConstraint("id"),
            ],
            [("ix_memory_link_attempt_at", ["at"], False), ("ix_memory_link_attempt_person_id", ["person_id"], False)],
        ),
        (
            "guard_usage",
            [
                sa.Column("id", sa.Integer(), nullable=False),
                sa.Column("person_id", sa.Integer(), nullable=False),
                sa.Column("day", sa.String(length=10), nullable=False),
                sa.Column("requests", sa.Integer(), nullable=False),
                sa.Column("prompt_tokens", sa.Integer(), nullable=False),
                sa.Column("completion_tokens", sa.Integer(), nullable=False),
                sa.PrimaryKeyConstraint("id"),
                sa.UniqueConstraint("person_id", "day", name="uq_guard_usage_person_day"),
            ],
            [("ix_guard_usage_day", ["day"], False), ("ix_guard_usage_person_id", ["person_id"], False)],
        ),
    ]


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    existing = set(inspector.get_table_names())
    for name, parts, indexes in _tables():
        if name not in existing:
            op.create_table(name, *parts)
            have: set[str] = set()
        else:
            have = {ix["name"] for ix in inspector.get_indexes(name) if ix["name"]}
        for ix_name, columns, unique in indexes:
            if ix_name not in have:
                op.create_index(ix_name, name, columns, unique=unique)


def downgrade() -> None:
    for name, _parts, _indexes in reversed(_tables()):
        op.drop_table(name)
