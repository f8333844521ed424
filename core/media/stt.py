"""Voice → text: the `Transcriber` port and its OpenAI-compatible implementation.

`OpenAITranscriber` posts the audio to `<FUZI_STT_BASE_URL>/audio/transcriptions` with the openai
SDK (Whisper's API shape: multipart `file` + `model`, JSON `{"text": …}` back). Any server that
speaks it works — OpenAI, Groq, a local whisper.cpp or faster-whisper server. Built in bot/ only
when FUZI_STT_BASE_URL is set; without it voice messages get a one-line notice.
"""

from __future__ import annotations

from typing import Any, Protocol

STT_TIMEOUT_S = 60.0


class TranscriptionFailed(Exception):
    """The endpoint could not be reached or refused the audio (the person is told in one line)."""


class Transcriber(Protocol):
    """Audio bytes → what was said."""

    async def transcribe(self, data: bytes, *, name: str, mime: str) -> str: ...


class OpenAITranscriber:
    """`/v1/audio/transcriptions` through the openai SDK.

    Args:
        base_url: e.g. ``https://api.openai.com/v1`` (FUZI_STT_BASE_URL).
        api_key: FUZI_STT_API_KEY (a local server may take any).
        model: FUZI_STT_MODEL, e.g. ``whisper-1``.
        language: a hint for the model (Fuzi's people speak Chinese by default).
    """

    def __init__(self, base_url: str, api_key: str | None, model: str, *, language: str | None = "zh") -> None:
        import openai

        self._sdk = openai.AsyncOpenAI(
            base_url=base_url, api_key=api_key or "none", max_retries=1, timeout=STT_TIMEOUT_S
        )
        self._model, self._language = model, language

    async def transcribe(self, data: bytes, *, name: str, mime: str) -> str:
        import openai

        extra: dict[str, Any] = {"language": self._language} if self._language else {}
        create: Any = self._sdk.audio.transcriptions.create  # its overloads do not take **extra
        try:
            result = await create(model=self._model, file=(name or "voice.ogg", data, mime or "audio/ogg"), **extra)
        except openai.OpenAIError as exc:
            raise TranscriptionFailed(type(exc).__name__) from exc
        return (getattr(result, "text", "") or "").strip()

    async def aclose(self) -> None:
        await self._sdk.close()
