"""Database and shared-state settings (FUZI_DATABASE_*, FUZI_REDIS_*)."""

from __future__ import annotations

from pydantic import Field

from bot.settings.base import Section, section


class DatabaseSettings(Section):
    """Database pool and schema upgrade (FUZI_DATABASE_*; the URL is FUZI_DATABASE_URL).

    Overflow and recycle times are PoolConfig constants (core/storage/db.py).
    """

    model_config = section("FUZI_DATABASE_")

    pool_size: int = Field(
        default=5, ge=1, description="PostgreSQL connections kept open per process (ignored for SQLite)"
    )
    pool_timeout_s: float = Field(
        default=10.0, gt=0, description="how long a request waits for a free connection before failing"
    )
    migrate_on_start: bool = Field(
        default=True,
        description="upgrade the schema at start (locked; N processes may start together); false: run `fuzi db upgrade`",
    )


class RedisSettings(Section):
    """Redis (FUZI_REDIS_*) for what N processes share; unset: in memory, one process."""

    model_config = section("FUZI_REDIS_")

    url: str | None = Field(
        None, description="e.g. redis://host:6379/0: shared limits, one reply in flight, /cancel across processes"
    )
    prefix: str = Field("fuzi:", description="every key starts with it (several deployments may share one Redis)")
    reply_lease_s: float = Field(
        default=30.0, ge=1.0, description="one-reply-in-flight lease: a killed process frees its people after this"
    )
