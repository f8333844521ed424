"""The profile is extracted in batches: `memory_profile.extracted_upto`.

The id of the person's newest question already sent to the profile extraction; the questions after
it wait for the next batch (core/memory/profile.py). Every exchange stored before this revision was
extracted one by one as it happened, so each person's mark starts at their newest message, and people
with messages but no profile row get one (an empty profile) carrying the mark. The index on
`message.person_id` becomes one on (person_id, id): the questions after a mark are a range of it.

Revision ID: 0033_profile_batches
Revises: 0032_reading
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0033_profile_batches"
down_revision = "0032_reading"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_message_person_id_id", "message", ["person_id", "id"], unique=False)
    op.drop_index("ix_message_person_id", table_name="message")
    op.add_column("memory_profile", sa.Column("extracted_upto", sa.Integer(), nullable=False, server_default="0"))
    op.execute(
        "UPDATE memory_profile SET extracted_upto = COALESCE("
        "(SELECT MAX(m.id) FROM message m WHERE m.person_id = memory_profile.person_id), 0)"
    )
    op.execute(
        "INSERT INTO memory_profile (person_id, data, extracted_upto, updated_at) "
        "SELECT m.person_id, '{}', MAX(m.id), CURRENT_TIMESTAMP FROM message m "
        "WHERE m.person_id IS NOT NULL AND m.person_id NOT IN (SELECT person_id FROM memory_profile) "
        "GROUP BY m.person_id"
    )


def downgrade() -> None:
    op.execute("DELETE FROM memory_profile WHERE data = '{}'")
    with op.batch_alter_table("memory_profile") as batch:
        batch.drop_column("extracted_upto")
    op.create_index("ix_message_person_id", "message", ["person_id"], unique=False)
    op.drop_index("ix_message_person_id_id", table_name="message")
