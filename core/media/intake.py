"""MediaIntake: a photo or a voice message becomes a text question; what cannot be read gets one line.

`ChatService.handle` hands every addressed message that carries media here first. In order: the
kind (stickers, animations and files other than images are answered at once), the declared size or
duration, the sender's media limit (`media:<platform>:<user>` on the same limiter store as the other
limits, with its own quota), then the download (bounded in time and bytes), then OCR or
transcription. The question that comes out (core/media/compose.py) goes back through the engine like
any text — the input guard, the message limits and the one reply in flight per person all apply.
Nothing is written to disk: the bytes live in memory for the duration of one read.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass, replace
from typing import cast

import structlog

from core.events import FinalReply, Notice, NoticeReason, ReplyEvent, TextDelta, TextReset
from core.guards.limits import RateLimiter
from core.language.text import reply_language
from core.logging import bind_trace
from core.media.compose import heard_line, photo_question
from core.media.errors import ImageRejected
from core.media.ocr import PageReader
from core.media.stt import Transcriber, TranscriptionFailed
from core.media.texts import media_line
from core.texts import limit_refusal, say
from core.types import Incoming, Media

log = structlog.get_logger(__name__)

MB = 1024 * 1024
FETCH_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class MediaLimits:
    """Caps on one upload. Telegram lets bots download at most 20 MB, so larger is never fetched."""

    max_image_bytes: int = 20 * MB
    max_voice_s: float = 300.0
    max_voice_bytes: int = 20 * MB


class _Refused(Exception):
    def __init__(self, text: str, reason: NoticeReason = "bad_input", problem: str = "", **extra: object) -> None:
        super().__init__(problem or reason)
        self.text, self.reason, self.extra = text, reason, {"media": problem, **extra} if problem else dict(extra)


def _refuse(problem: str, **fields: object) -> _Refused:
    return _Refused(media_line(problem, **fields), "bad_input", problem)


class MediaIntake:
    """Reads the media of a message into a question (see the module docstring).

    Args:
        pages: the OCR reader, or None when this install has none (`ocr` extra missing).
        transcriber: the speech-to-text endpoint, or None when FUZI_STT_BASE_URL is unset.
        limiter: the media quota per sender (None: no media limit beyond the message limits).
        limits: size and duration caps.
        vision: keep the photo (re-encoded) on the question for a vision model (FUZI_LLM_VISION).
    """

    def __init__(
        self,
        pages: PageReader | None = None,
        transcriber: Transcriber | None = None,
        limiter: RateLimiter | None = None,
        limits: MediaLimits = MediaLimits(),
        *,
        vision: bool = False,
    ) -> None:
        self.pages, self.transcriber, self.limiter, self.limits = pages, transcriber, limiter, limits
        self.vision = vision

    async def handle(
        self, incoming: Incoming, answer: Callable[[Incoming], AsyncIterator[ReplyEvent]]
    ) -> AsyncGenerator[ReplyEvent, None]:
        """The reply to a message with media: a notice, or `answer`'s events for the question it became."""
        with bind_trace(incoming):
            try:
                question, heard, images = await self._question(incoming, _pick(incoming.media))
            except _Refused as refused:
                log.info("media_refused", problem=refused.extra.get("media"), reason=refused.reason)
                yield Notice(refused.text, refused.reason, incoming.trace_id, refused.extra)
                return
            except Exception:
                log.exception("media_failed")
                yield Notice(say("ERROR", None, trace=incoming.trace_id), "error", incoming.trace_id)
                return
        asked = replace(incoming, text=question, media=(), images=images)
        stream = cast(AsyncGenerator[ReplyEvent, None], answer(asked))
        async with aclosing(stream) as events:
            async for event in _heard_first(events, heard) if heard else events:
                yield event

    async def _question(self, incoming: Incoming, media: Media) -> tuple[str, str | None, tuple[bytes, ...]]:
        if media.kind == "sticker":
            raise _refuse("animated" if media.animated else "sticker")
        if media.kind == "file":
            raise _refuse("not_image")
        if media.kind == "voice":
            heard = await self._voice(incoming, media)
            return (f"{incoming.text.strip()}\n{heard}" if incoming.text.strip() else heard), heard, ()
        return await self._image(incoming, media)

    async def _image(self, incoming: Incoming, media: Media) -> tuple[str, None, tuple[bytes, ...]]:
        if self.pages is None:
            raise _refuse("no_ocr")
        if media.animated:
            raise _refuse("animated")
        cap = self.limits.max_image_bytes
        if media.size is not None and media.size > cap:
            raise _refuse("too_large", mb=cap // MB)
        await self._admit(incoming)
        data = await self._fetch(media, cap, _refuse("too_large", mb=cap // MB))
        try:
            page = await self.pages.read(data, keep_jpeg=self.vision)
        except ImageRejected as exc:
            raise _refuse(exc.problem, mb=cap // MB) from None
        except TimeoutError:
            raise _refuse("ocr_failed") from None
        log.info("media_read", kind="image", han=page.han, seconds=round(page.seconds, 2), quoted=media.quoted)
        if page.han == 0:
            raise _refuse("no_text")
        return photo_question(incoming.text, page.text), None, (page.jpeg,) if self.vision else ()

    async def _voice(self, incoming: Incoming, media: Media) -> str:
        if self.transcriber is None:
            raise _refuse("voice_off")
        limits = self.limits
        too_long = _refuse("voice_too_long", seconds=int(limits.max_voice_s))
        if (media.duration_s or 0) > limits.max_voice_s or (media.size or 0) > limits.max_voice_bytes:
            raise too_long
        await self._admit(incoming)
        data = await self._fetch(media, limits.max_voice_bytes, too_long)
        try:
            async with asyncio.timeout(FETCH_TIMEOUT_S * 2):
                text = await self.transcriber.transcribe(data, name=media.name, mime=media.mime)
        except (TranscriptionFailed, TimeoutError) as exc:
            log.warning("voice_not_transcribed", error=type(exc).__name__)
            raise _refuse("voice_failed") from None
        log.info("media_read", kind="voice", chars=len(text), seconds_declared=media.duration_s)
        if not text.strip():
            raise _refuse("voice_failed")
        return text.strip()

    async def _admit(self, incoming: Incoming) -> None:
        """Count the upload against the sender's media quota; a refusal says when to send again."""
        if self.limiter is None:
            return
        decision = await self.limiter.acquire(f"media:{incoming.account}", None)
        if not decision.allowed:
            lang = reply_language(incoming.text[:500]) or "zh"
            text = limit_refusal(decision.reason or "per_minute", decision.retry_after_s, lang)
            limit = f"media_{decision.reason}"
            raise _Refused(text, "rate_limited", "", limit=limit, retry_after_s=decision.retry_after_s)

    @staticmethod
    async def _fetch(media: Media, cap: int, too_big: _Refused) -> bytes:
        try:
            async with asyncio.timeout(FETCH_TIMEOUT_S):
                data = await media.fetch()
        except Exception as exc:  # the platform's download failed: the person may simply resend
            log.warning("media_download_failed", error=type(exc).__name__)
            raise _refuse("download_failed") from None
        if len(data) > cap:
            raise too_big
        return data


def _pick(media: tuple[Media, ...]) -> Media:
    """The one item read: the message's own image or voice before a quoted one, else the first."""
    readable = [m for m in media if m.kind in ("image", "voice")]
    return sorted(readable, key=lambda m: m.quoted)[0] if readable else media[0]


async def _heard_first(events: AsyncIterator[ReplyEvent], heard: str) -> AsyncIterator[ReplyEvent]:
    """Put what was heard at the top of the reply: before the first text, again after a reset, and
    in the final text (the stored answer stays without it)."""
    line, pending = heard_line(heard), True
    async for event in events:
        if isinstance(event, TextReset):
            pending = True
        elif isinstance(event, TextDelta) and pending:
            pending = False
            yield TextDelta(line)
        elif isinstance(event, FinalReply):
            event = replace(event, text=line + event.text)
        yield event
