"""Database and shared-state settings (FUZI_DATABASE_*, FUZI_REDIS_*)."""

from __future__ import annotations

from pydantic import Field

from bot.settings.base import Section, section


class DatabaseSettings(Section):
    """Connection pool of a server database and the schema upgrade at start.

    FUZI_DATABASE_URL itself is a top-level setting (`Settings.database_url`).
    """

    model_config = section("FUZI_DATABASE_")

    pool_size: int = Field(default=5, ge=1)
    max_overflow: int = Field(default=5, ge=0)
    pool_timeout_s: float = Field(default=10.0, gt=0)
    pool_recycle_s: int = Field(default=1800, ge=60)
    migrate_on_start: bool = True


class RedisSettings(Section):
    """Redis for what N processes share; without a URL everything stays in process memory.

    Attributes:
        url: e.g. ``redis://host:6379/0``; unset: one process, in-memory limits and leases.
        prefix: every key starts with it (several deployments may share one Redis).
        reply_lease_s: a person's one-reply-in-flight lease; a crashed process frees the person after it.
    """

    model_config = section("FUZI_REDIS_")

    url: str | None = None
    prefix: str = "fuzi:"
    reply_lease_s: float = Field(default=30.0, ge=1.0)
