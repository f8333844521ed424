"""Photos and voice messages (FUZI_STT_*, FUZI_MEDIA_*): docs/media.md."""

from pydantic import Field, SecretStr

from bot.settings.base import Section, section


class SttSettings(Section):
    """The OpenAI-compatible `/v1/audio/transcriptions` endpoint; unset base_url: voice is not read."""

    model_config = section("FUZI_STT_")

    base_url: str | None = None  # e.g. https://api.openai.com/v1, or a local whisper server
    api_key: SecretStr | None = None
    model: str = "whisper-1"


class MediaSettings(Section):
    """The per-person media quota, counted beside the message limits (FUZI_GUARD_*)."""

    model_config = section("FUZI_MEDIA_")

    per_day: int = Field(30, ge=1)  # photos and voice messages one person may send a day
