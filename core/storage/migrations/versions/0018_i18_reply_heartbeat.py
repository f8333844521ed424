"""A running reply's heartbeat, so live replicas can repair the replies of a process that died.

`message.heartbeat_at` is renewed by the process running the reply; a "streaming" row whose
heartbeat (or, before the first one, creation) is older than the lease is closed as "interrupted"
by any live process. The index serves that sweep's `status = 'streaming'` lookup.

Revision ID: 0018_i18
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018_i18"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("message") as batch:
        batch.add_column(sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_message_status_role", "message", ["status", "role"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_message_status_role", table_name="message")
    with op.batch_alter_table("message") as batch:
        batch.drop_column("heartbeat_at")
