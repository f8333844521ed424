"""Discord adapter (DISCORD_*, FUZI_DISCORD_GUILD_ID)."""

from pydantic import AliasChoices, Field, SecretStr

from bot.settings.base import Section, section


class DiscordSettings(Section):
    model_config = section("DISCORD_")

    bot_token: SecretStr | None = None
    api_base_url: str | None = None
    gateway_url: str | None = None
    guild_id: int | None = Field(None, validation_alias=AliasChoices("FUZI_DISCORD_GUILD_ID", "DISCORD_GUILD_ID"))
