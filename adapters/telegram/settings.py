"""Telegram adapter settings (TELEGRAM_*), owned by the adapter; bot/settings composes them."""

from typing import Literal

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class TelegramSettings(BaseSettings):
    """Bot token, Bot API base, polling or webhook, and outbound pacing.

    Pacing: each chat gets one outbound budget (sends, edits, typing share it); the interval is
    ``edit_interval_private_s`` in private chats and ``edit_interval_group_s`` in groups (3 s keeps a
    group under Telegram's 20 messages a minute). ``max_requests_per_s`` caps the whole bot.
    """

    model_config = SettingsConfigDict(
        env_prefix="TELEGRAM_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    bot_token: SecretStr | None = None
    api_base_url: str = "https://api.telegram.org/bot"
    mode: Literal["polling", "webhook"] = "polling"
    webhook_url: str | None = None  # public https URL Telegram posts to, e.g. https://bot.example.com/telegram
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = Field(8443, ge=1, le=65535)
    webhook_path: str = "telegram"
    webhook_secret: SecretStr | None = None  # X-Telegram-Bot-Api-Secret-Token
    poll_timeout_s: int = Field(30, ge=0, le=50)
    edit_interval_private_s: float = Field(1.0, ge=0.0)
    edit_interval_group_s: float = Field(3.0, ge=0.0)
    max_requests_per_s: float = Field(28.0, gt=0.0)
    global_limiter: Literal["priority", "aio"] = "priority"
    typing_refresh_s: float = Field(4.5, gt=0.0)

    @model_validator(mode="after")
    def _webhook_needs_url(self) -> "TelegramSettings":
        if self.mode == "webhook" and not self.webhook_url:
            raise ValueError("TELEGRAM_WEBHOOK_URL is required when TELEGRAM_MODE=webhook")
        return self
