"""What a Discord message replies to or forwards, as `core.types.Quote`s for the engine.

A reply's referenced message usually comes with MESSAGE_CREATE (`referenced_message`); when it does
not (old or uncached messages, and always one level further up a chain) it is fetched over REST
(needs *Read Message History*). The chain is followed up to `QUOTE_CHAIN_DEPTH` messages; a deleted
or unreadable message ends it. A forward carries a snapshot of the forwarded message (no author).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import discord
import structlog

from core.memory.quotes import QUOTE_CHAIN_DEPTH
from core.types import Quote

log = structlog.get_logger(__name__)

Fetch = Callable[[int, int], Awaitable[discord.Message]]
"""(channel_id, message_id) → the message, over REST; raises discord.HTTPException when it cannot."""


async def quotes_of(message: discord.Message, fetch: Fetch, depth: int = QUOTE_CHAIN_DEPTH) -> tuple[Quote, ...]:
    """The messages `message` replies to (nearest first, up to `depth`), or the one it forwards."""
    forwarded = _forwarded(message)
    if forwarded:
        return forwarded
    quotes: list[Quote] = []
    current = message
    for level in range(1, depth + 1):
        target = await _referenced(current, fetch)
        if target is None:
            break
        quotes.append(Quote(target.content or "", target.author.display_name, target.author.bot, level, "reply"))
        current = target
    return tuple(quotes)


async def _referenced(message: discord.Message, fetch: Fetch) -> discord.Message | None:
    ref = message.reference
    if ref is None or ref.message_id is None or ref.type is discord.MessageReferenceType.forward:
        return None
    if isinstance(ref.resolved, discord.Message):
        return ref.resolved
    if isinstance(ref.resolved, discord.DeletedReferencedMessage):
        return None
    try:
        return await fetch(ref.channel_id or message.channel.id, ref.message_id)
    except discord.HTTPException as exc:  # deleted, no access: the chain ends here
        log.info("discord_quote_not_fetched", status=exc.status, message=ref.message_id)
        return None


def _forwarded(message: discord.Message) -> tuple[Quote, ...]:
    ref = message.reference
    if ref is None or ref.type is not discord.MessageReferenceType.forward:
        return ()
    return tuple(Quote(s.content or "", "", False, 1, "forward") for s in message.message_snapshots[:1])
