"""Telegram adapter settings (TELEGRAM_*), owned by the adapter; bot/settings composes them."""

from typing import Literal

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# Chat requests per second for the whole bot (Telegram allows about 30; was TELEGRAM_MAX_REQUESTS_PER_S).
MAX_REQUESTS_PER_S = 28.0


class TelegramSettings(BaseSettings):
    """Telegram (TELEGRAM_*): bot token, Bot API base, polling or webhook, and outbound pacing.

    Each chat gets one outbound budget (sends, edits, typing share it). The bot-wide rate and the
    typing refresh are constants of adapters/telegram (docs/settings.md).
    """

    model_config = SettingsConfigDict(
        env_prefix="TELEGRAM_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    bot_token: SecretStr | None = Field(None, description="from @BotFather; needed for `fuzi run telegram`")
    api_base_url: str = Field(
        "https://api.telegram.org/bot", description="Bot API base (a self-hosted Bot API server, or a test fake)"
    )
    mode: Literal["polling", "webhook"] = Field(
        "polling", description="polling, or webhook (needs TELEGRAM_WEBHOOK_URL)"
    )
    webhook_url: str | None = Field(
        None, description="public https URL Telegram posts to, e.g. https://bot.example.com/telegram"
    )
    webhook_listen: str = Field("0.0.0.0", description="address the webhook server binds")
    webhook_port: int = Field(8443, ge=1, le=65535, description="port the webhook server binds")
    webhook_path: str = Field("telegram", description="URL path the webhook server answers (behind a proxy)")
    webhook_secret: SecretStr | None = Field(
        None, description="X-Telegram-Bot-Api-Secret-Token: webhook calls without it are refused"
    )
    poll_timeout_s: int = Field(30, ge=0, le=50, description="long-polling wait per getUpdates call")
    edit_interval_private_s: float = Field(
        1.0, ge=0.0, description="least time between two requests to one private chat (streamed edits)"
    )
    edit_interval_group_s: float = Field(
        3.0, ge=0.0, description="the same in groups (3 s keeps a group under Telegram's 20 messages a minute)"
    )

    @model_validator(mode="after")
    def _webhook_needs_url(self) -> "TelegramSettings":
        if self.mode == "webhook" and not self.webhook_url:
            raise ValueError("TELEGRAM_WEBHOOK_URL is required when TELEGRAM_MODE=webhook")
        return self
