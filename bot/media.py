"""Builds the media intake (core/media): the OCR engine, the transcription endpoint, the media quota.

OCR is RapidOCR when the `ocr` extra is installed (the default `./scripts/chat` and `./scripts/test`
installs include it); its models load on the first photo, not at start, so a warm start does not
pay for them. Voice is read only when FUZI_STT_BASE_URL is set.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import structlog

from bot.settings import Settings
from core.guards.limits import InMemoryRateLimiter, Quota, RateLimiter
from core.media.intake import MediaIntake, MediaLimits
from core.media.ocr import PageReader, TextReader
from core.media.ocr_rapid import RapidReader, rapidocr_available

if TYPE_CHECKING:
    from redis.asyncio import Redis

log = structlog.get_logger(__name__)

MEDIA_PER_MINUTE = 4  # photos and voice messages per person in any 60 s (the daily cap is a setting)
OCR_THREADS = 2


class LazyReader:
    """A `TextReader` that builds its engine on the first photo (in the worker thread that reads it)."""

    def __init__(self, build, name: str) -> None:
        self.name = name
        self._build, self._lock = build, threading.Lock()
        self._engine: TextReader | None = None

    def read(self, image) -> list[str]:
        with self._lock:
            if self._engine is None:
                self._engine = self._build()
                log.info("ocr_loaded", engine=self.name)
            engine = self._engine
        return engine.read(image)


def build_media(settings: Settings, redis: Redis | None = None) -> MediaIntake:
    """The intake for `settings`: OCR if installed, STT if configured, the media quota (in `redis` if given)."""
    pages = None
    if rapidocr_available():
        pages = PageReader(LazyReader(lambda: RapidReader(threads=OCR_THREADS), "rapidocr"))
    else:
        log.warning("ocr_not_installed", hint="pip install 'fuzi[ocr]' to read photos of pages")
    s = settings.stt
    transcriber = None
    if s.base_url:
        from core.media.stt import OpenAITranscriber

        key = s.api_key.get_secret_value() if s.api_key else None
        transcriber = OpenAITranscriber(s.base_url, key, s.model)
    vision = settings.llm.vision and settings.llm.api_key is not None
    return MediaIntake(pages, transcriber, media_limiter(settings, redis), MediaLimits(), vision=vision)


def media_limiter(settings: Settings, redis: Redis | None = None) -> RateLimiter:
    """The media quota on the same store as the message limits: in memory, or in `redis`."""
    quota = Quota(per_minute=MEDIA_PER_MINUTE, per_day=settings.media.per_day, group_per_minute=None)
    if redis is None:
        return InMemoryRateLimiter(quota)
    from core.guards.limits_redis import RedisRateLimiter  # the embedded default never imports redis-py

    return RedisRateLimiter(quota, redis, prefix=f"{settings.redis.prefix}media:")
