"""Database and shared-state settings (FUZI_DATABASE_*, FUZI_REDIS_URL)."""

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
