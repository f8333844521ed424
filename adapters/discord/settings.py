"""Discord adapter settings (DISCORD_*, FUZI_DISCORD_GUILD_ID), owned by the adapter; bot/settings composes them."""

from pydantic import AliasChoices, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class DiscordSettings(BaseSettings):
    """Discord (DISCORD_*): token, endpoints, slash-command sync target, intents, threads, shards.

    Shards: every process gets the same DISCORD_SHARD_COUNT and its own DISCORD_SHARD_IDS (several:
    discord.py's AutoShardedClient runs them in one process; none: this process runs all of them).
    The interaction-token lifetime is a constant of adapters/discord/client.py.
    """

    model_config = SettingsConfigDict(env_prefix="DISCORD_", env_file=".env", env_file_encoding="utf-8", extra="ignore")

    bot_token: SecretStr | None = Field(
        None, description="from the Discord developer portal; needed for `fuzi run discord`"
    )
    api_base_url: str | None = Field(None, description="REST base replacing https://discord.com/api/v10 (a test fake)")
    gateway_url: str | None = Field(None, description="gateway replacing wss://gateway.discord.gg/ (a test fake)")
    guild_id: int | None = Field(
        None,
        validation_alias=AliasChoices("FUZI_DISCORD_GUILD_ID", "DISCORD_GUILD_ID"),
        description="sync slash commands to this one guild (instant; for development); empty: globally",
    )
    edit_interval_s: float = Field(
        1.2, ge=0.0, description="least time between two requests to one channel (Discord allows ~5 edits per 5 s)"
    )
    message_content: bool = Field(
        False, description="request the privileged message-content intent: unaddressed guild messages become context"
    )
    thread_replies: bool = Field(False, description="answer a mention in a guild channel inside a new thread")
    shard_count: int | None = Field(
        None, ge=1, description="split the gateway over N processes: the same count in every process"
    )
    shard_ids: str = Field(
        "", description="this process's shard ids (0 … count-1, one or several: 0,3,6); shard 0 syncs the commands"
    )

    @property
    def shards(self) -> tuple[int, ...] | None:
        """This process's shards, or None when the gateway is not split."""
        if not self.shard_count:
            return None
        ids = tuple(int(i) for i in self.shard_ids.split(",") if i.strip())
        return ids or tuple(range(self.shard_count))  # no ids: this process runs every shard

    @property
    def shard_id(self) -> int | None:
        """This process's shard when it runs exactly one, else None."""
        shards = self.shards
        return shards[0] if shards and len(shards) == 1 else None

    @property
    def syncs_commands(self) -> bool:
        """Whether this process syncs the slash commands (unsplit, or it runs shard 0)."""
        return self.shards is None or 0 in self.shards

    @model_validator(mode="after")
    def _shards_of_this_process(self) -> "DiscordSettings":
        ids = [i.strip() for i in self.shard_ids.split(",") if i.strip()]
        if ids and not self.shard_count:
            raise ValueError("DISCORD_SHARD_IDS needs DISCORD_SHARD_COUNT")
        if self.shard_count and not all(i.isdigit() and int(i) < self.shard_count for i in ids):
            raise ValueError(f"DISCORD_SHARD_IDS: each must be a number from 0 to {self.shard_count - 1}")
        if len(set(map(int, ids))) != len(ids):
            raise ValueError("DISCORD_SHARD_IDS: an id is named twice")
        return self
