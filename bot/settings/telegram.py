"""Telegram adapter (TELEGRAM_*)."""

from pydantic import SecretStr

from bot.settings.base import Section, section


class TelegramSettings(Section):
    model_config = section("TELEGRAM_")

    bot_token: SecretStr | None = None
    api_base_url: str = "https://api.telegram.org/bot"
