"""Photos and voice messages (FUZI_STT_*, FUZI_MEDIA_*): docs/media.md."""

from pydantic import Field, SecretStr

from bot.settings.base import Section, section


class SttSettings(Section):
    """Voice messages (FUZI_STT_*): an OpenAI-compatible /v1/audio/transcriptions endpoint."""

    model_config = section("FUZI_STT_")

    base_url: str | None = Field(
        None, description="e.g. https://api.openai.com/v1 or a local whisper server; unset: voice gets a notice"
    )
    api_key: SecretStr | None = Field(None, description="its key (a local whisper server may take any)")
    model: str = Field("whisper-1", description="the transcription model the endpoint serves")


class MediaSettings(Section):
    """Media quota (FUZI_MEDIA_*): photos are read by offline OCR (the `ocr` extra)."""

    model_config = section("FUZI_MEDIA_")

    per_day: int = Field(
        30, ge=1, description="photos and voice messages one person may send a day (besides 4 a minute)"
    )
