"""Discord adapter settings (DISCORD_*, FUZI_DISCORD_GUILD_ID), owned by the adapter; bot/settings composes them."""

from pydantic import AliasChoices, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class DiscordSettings(BaseSettings):
    """Discord bot: token, endpoints (tests point them at a local fake), sync target and streaming pace.

    Attributes:
        bot_token: the bot token (DISCORD_BOT_TOKEN).
        api_base_url: REST base replacing ``https://discord.com/api/v10`` (DISCORD_API_BASE_URL).
        gateway_url: gateway replacing ``wss://gateway.discord.gg/`` (DISCORD_GATEWAY_URL).
        guild_id: sync slash commands to this guild only (instant; for development), else globally.
        edit_interval_s: least time between two requests (send, edit, typing) to one channel, shared
            by every reply streaming there: the outbound budget (Discord allows ~5 edits per 5 s).
        interaction_ttl_s: how long an interaction token is used before the reply moves to a plain
            channel message (Discord's tokens expire after 15 minutes; a margin is kept).
        message_content: request the privileged message-content intent; then unaddressed guild
            messages reach the engine (addressed=False) as channel context.
        thread_replies: answer a mention in a guild text channel inside a new thread started from the
            user's message, so the conversation continues there without mentions.
        shard_count / shard_ids: split the gateway over N processes (discord.py sharding): every
            process gets the same DISCORD_SHARD_COUNT and its own DISCORD_SHARD_IDS, one or several
            comma-separated ids from 0 … count-1 (several: discord.py's AutoShardedClient runs them in
            one process; none: this process runs all of them). Only the process running shard 0 syncs
            the slash commands.
    """

    model_config = SettingsConfigDict(env_prefix="DISCORD_", env_file=".env", env_file_encoding="utf-8", extra="ignore")

    bot_token: SecretStr | None = None
    api_base_url: str | None = None
    gateway_url: str | None = None
    guild_id: int | None = Field(None, validation_alias=AliasChoices("FUZI_DISCORD_GUILD_ID", "DISCORD_GUILD_ID"))
    edit_interval_s: float = Field(1.2, ge=0.0)
    interaction_ttl_s: float = Field(14 * 60 + 30, gt=0.0)
    message_content: bool = False
    thread_replies: bool = False
    shard_count: int | None = Field(None, ge=1)
    shard_ids: str = ""

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
