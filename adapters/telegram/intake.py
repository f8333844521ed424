"""Every Telegram update kept in the inbox (core/inbox) before Telegram hears it was received.

PTB hands every update it takes to one ``update_queue``: the webhook handler before its response
goes out (the 200 is sent when the handler returns), the polling loop before its next ``getUpdates``
moves the offset past the batch. :class:`InboxQueue` is that queue with a durable ``put``: the update
is written first, a repeat is dropped, and a failed write raises a ``NetworkError`` — the webhook then
answers 503 (Telegram sends the update again later) and polling retries the same batch. The custom
queue and update processor are PTB's documented extension points (``ApplicationBuilder.update_queue``,
``BaseUpdateProcessor``); nothing of PTB is patched.

:class:`InboxProcessor` closes each entry when its handlers are done, whatever they did. An entry a
dead process left is replayed here (`replay`: the stored update goes back into the queue past the
inbox) or, too old, the person is told in one line that the answer was lost (`lost`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

import structlog
from telegram import Update
from telegram.error import NetworkError
from telegram.ext import Application, SimpleUpdateProcessor

from adapters.telegram.routing import route
from core.inbox import Inbox, InboxEntry, InboxHandlers
from core.texts import say

log = structlog.get_logger(__name__)

PLATFORM = "telegram"


class InboxQueue(asyncio.Queue):
    """PTB's update queue, with every update kept in ``inbox`` before it is queued (module docstring)."""

    def __init__(self, inbox: Inbox) -> None:
        super().__init__()
        self.inbox = inbox

    async def put(self, item: object) -> None:
        if isinstance(item, Update):
            try:
                fresh = await self.inbox.accept(PLATFORM, str(item.update_id), item.to_dict())
            except Exception as exc:
                log.warning("telegram_update_not_kept", update_id=item.update_id, error=type(exc).__name__)
                raise NetworkError("the update could not be stored; Telegram will send it again") from exc
            if not fresh:
                return
        await super().put(item)


class InboxProcessor(SimpleUpdateProcessor):
    """Runs updates concurrently (as PTB's own) and closes each one's inbox entry when it is handled."""

    def __init__(self, inbox: Inbox, max_concurrent_updates: int = 256) -> None:
        super().__init__(max_concurrent_updates)
        self.inbox = inbox

    async def do_process_update(self, update: object, coroutine: Awaitable[object]) -> None:
        try:
            await coroutine
        finally:
            if isinstance(update, Update):
                await self.inbox.done(PLATFORM, str(update.update_id))


def inbox_handlers(app: Application) -> InboxHandlers:
    """How this bot answers the updates a dead process left (module docstring)."""

    async def replay(entry: InboxEntry) -> None:
        update = Update.de_json(entry.payload, app.bot)
        app.update_queue.put_nowait(update)  # past InboxQueue.put: the entry is ours already

    async def lost(entry: InboxEntry) -> None:
        message = Update.de_json(entry.payload, app.bot).effective_message
        r = route(message, app.bot.id, app.bot.username) if message is not None else None
        if message is None or r is None or r.kind == "context":
            return  # a reaction, a button, group talk not addressed to Fuzi …: nobody waits for a reply
        await app.bot.send_message(
            message.chat.id,
            say("LOST", None),
            reply_to_message_id=message.message_id,
            allow_sending_without_reply=True,
            message_thread_id=message.message_thread_id if message.is_topic_message else None,
        )

    return InboxHandlers(replay=replay, lost=lost)
