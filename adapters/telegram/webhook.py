"""The webhook endpoint's handling of bodies that are not updates: 400 and one short log line.

PTB's own handler answers a body that is not JSON with a 500 (an uncaught ``JSONDecodeError``) and
logs a body that is JSON but no update at CRITICAL, with the raw body. Anyone who can reach the
webhook port can send such bodies (with the secret token, a misconfigured proxy can too), so
:func:`install` puts a stricter handler in its place: not JSON or not an update → 400 and one
warning line with the reason and the body's size, never its content; real updates go on as before.
An update that cannot be kept in the inbox (the database is down: adapters/telegram/intake.py) is
answered 503, so Telegram delivers it again later instead of counting it as received.
"""

from __future__ import annotations

import json
from http import HTTPStatus

import structlog
import tornado.web
from telegram import Update
from telegram.error import NetworkError
from telegram.ext import ExtBot
from telegram.ext._utils import webhookhandler

log = structlog.get_logger(__name__)


class StrictTelegramHandler(webhookhandler.TelegramHandler):
    """PTB's webhook handler, with bad bodies refused as 400 (module docstring)."""

    async def post(self) -> None:
        self._validate_post()  # content type and secret token, as PTB checks them
        body = self.request.body
        try:
            data = json.loads(body)
        except ValueError:
            _refuse("not_json", len(body))
        if not isinstance(data, dict) or not isinstance(data.get("update_id"), int):
            _refuse("not_an_update", len(body))
        try:
            update = Update.de_json(data, self.bot)
        except Exception as exc:
            _refuse("malformed_update", len(body), error=type(exc).__name__)
        self.set_status(HTTPStatus.OK)
        if update:
            if isinstance(self.bot, ExtBot):
                self.bot.insert_callback_data(update)
            try:
                await self.update_queue.put(update)  # kept in the inbox before the 200 goes out
            except NetworkError:
                raise tornado.web.HTTPError(HTTPStatus.SERVICE_UNAVAILABLE, reason="not kept, send again") from None


def _refuse(reason: str, size: int, **extra: str):
    log.warning("telegram_webhook_bad_body", reason=reason, bytes=size, **extra)
    raise tornado.web.HTTPError(HTTPStatus.BAD_REQUEST, reason="not a Telegram update")


class StrictWebhookApp(webhookhandler.WebhookAppClass):
    def __init__(self, webhook_path: str, bot, update_queue, secret_token: str | None = None) -> None:
        super().__init__(webhook_path, bot, update_queue, secret_token)
        self.wildcard_router.rules[0].target = StrictTelegramHandler  # the one route PTB adds


def install() -> None:
    """Make the Updater's webhook use :class:`StrictTelegramHandler` (idempotent)."""
    from telegram.ext import _updater

    _updater.WebhookAppClass = StrictWebhookApp  # type: ignore[misc]
