"""Shared base for every settings section: env vars and `.env`, extra keys ignored."""

from pydantic_settings import BaseSettings, SettingsConfigDict


def section(prefix: str) -> SettingsConfigDict:
    """Config for a settings section whose variables start with `prefix`."""
    return SettingsConfigDict(env_prefix=prefix, env_file=".env", env_file_encoding="utf-8", extra="ignore")


class Section(BaseSettings):
    """A settings section; subclasses set `model_config = section("PREFIX_")`."""
