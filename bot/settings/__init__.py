"""One typed Settings object, validated at start; sections live beside this file."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from adapters.discord.settings import DiscordSettings
from adapters.telegram.settings import TelegramSettings
from adapters.web.settings import WebSettings
from bot.settings.agent import AgentSettings, WebSearchSettings
from bot.settings.database import DatabaseSettings, RedisSettings
from bot.settings.engine import EngineSettings
from bot.settings.guards import GuardSettings
from bot.settings.llm import LLMSettings
from bot.settings.media import MediaSettings, SttSettings
from bot.settings.memory import MemorySettings
from bot.settings.retired import ALL as _NO_LONGER_READ
from bot.settings.retired import DEPRECATED as DEPRECATED  # re-exported: tests and docs read them here
from bot.settings.retired import RETIRED as RETIRED
from bot.settings.retrieval import RetrievalSettings
from bot.settings.schedule import ScheduleSettings


class SettingsError(Exception):
    """A setting is missing or malformed; the message is one line naming the variable."""


class Settings(BaseSettings):
    """Fuzi: general (FUZI_*): state folder, corpus, database, logs, admins, ops port.

    Sections are nested models, each reading its own prefix; .env.example is generated from them
    (`python -m bot.settings.doc`).
    """

    model_config = SettingsConfigDict(env_prefix="FUZI_", env_file=".env", env_file_encoding="utf-8", extra="ignore")

    home: Path = Field(Path("./var"), description="folder for all state: SQLite file, LanceDB, logs, fetched corpus")
    corpus_dir: Path | None = Field(
        None,
        description="folder holding the corpus files, lunyu.json … zhongyong.json (default: $FUZI_HOME/corpus, `fuzi data fetch`)",
    )
    corpus_package: str | None = Field(
        None, description="what `npm pack` fetches when no corpus is found (default chinese-poetry@2.0.1; a .tgz works)"
    )
    database_url: str | None = Field(
        None, description="any SQLAlchemy URL (default: SQLite under FUZI_HOME); many processes: postgresql+psycopg://…"
    )
    env: str = Field("development", description='"production" switches logs to JSON lines')
    log_level: str = Field("INFO", description="DEBUG, INFO, WARNING or ERROR")
    admin_ids: str = Field("", description="comma-separated platform:user_id of the bot's administrators")
    metrics_port: int | None = Field(
        None, ge=1, le=65535, description="`fuzi run`: serve /metrics, /healthz, /readyz on this port; unset: none"
    )

    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    redis: RedisSettings = Field(default_factory=RedisSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    engine: EngineSettings = Field(default_factory=EngineSettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    web_search: WebSearchSettings = Field(default_factory=WebSearchSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    memory: MemorySettings = Field(default_factory=MemorySettings)
    guards: GuardSettings = Field(default_factory=GuardSettings)
    schedule: ScheduleSettings = Field(default_factory=ScheduleSettings)
    telegram: TelegramSettings = Field(default_factory=TelegramSettings)
    discord: DiscordSettings = Field(default_factory=DiscordSettings)
    web: WebSettings = Field(default_factory=WebSettings)
    stt: SttSettings = Field(default_factory=SttSettings)
    media: MediaSettings = Field(default_factory=MediaSettings)

    @field_validator("log_level")
    @classmethod
    def _level(cls, v: str) -> str:
        if v.upper() not in {"DEBUG", "INFO", "WARNING", "ERROR"}:
            raise ValueError("must be DEBUG, INFO, WARNING or ERROR")
        return v.upper()

    @property
    def corpus_path(self) -> Path:
        return self.corpus_dir or self.home / "corpus"

    @property
    def db_url(self) -> str:
        return self.database_url or f"sqlite:///{(self.home / 'fuzi.sqlite3').resolve()}"

    @property
    def admins(self) -> frozenset[str]:
        return frozenset(a.strip() for a in self.admin_ids.split(",") if a.strip())


def load_settings() -> Settings:
    """Read and validate settings; raise SettingsError with one line naming the bad variable.

    Each section is built on its own first so an error names the section's own variable.
    A deprecated variable that is still set gets one warning line on stderr.
    """
    for line in deprecated_in_use(os.environ, Path(".env")):
        print(line, file=sys.stderr)
    sections: dict[str, Any] = {}  # one model per section, each its own type
    for name, field in Settings.model_fields.items():
        cls = field.annotation
        if isinstance(cls, type) and issubclass(cls, BaseSettings):
            try:
                sections[name] = cls()
            except ValidationError as exc:
                raise SettingsError(_one_line(exc, cls.model_config.get("env_prefix", ""))) from None
    try:
        return Settings(**sections)
    except ValidationError as exc:
        raise SettingsError(_one_line(exc, "FUZI_")) from None


def _one_line(exc: ValidationError, prefix: str) -> str:
    err = exc.errors()[0]
    loc = [str(p) for p in err.get("loc", ())]
    name = (prefix + "_".join(loc)).upper() if loc else prefix.rstrip("_")
    return f"invalid setting {name}: {err.get('msg', 'invalid value')}"


def deprecated_in_use(environ: Mapping[str, str], dotenv: Path) -> list[str]:
    """One warning line per deprecated or retired variable set in the environment or in the `.env` file."""
    names = set(environ)
    if dotenv.is_file():
        names |= set(re.findall(r"^\s*(?:export\s+)?([A-Z0-9_]+)\s*=", dotenv.read_text("utf-8", "replace"), re.M))
    return [
        f"warning: {name} is deprecated and ignored: {why}" for name, why in _NO_LONGER_READ.items() if name in names
    ]
