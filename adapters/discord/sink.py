"""Discord's side of a streamed reply: :class:`MessageSink` implementations for the shared streamer.

:class:`ChannelSink` writes into a channel, thread or DM: the first message replies to the user's
message, later parts follow it. :class:`InteractionSink` fills a deferred slash-command response
("thinking…") and adds follow-ups; once the interaction token is about to expire (15 minutes, with a
margin; injectable) or Discord rejects it, the reply continues as a normal message through a
:class:`ChannelSink` (a DM to the user for private answers, so they stay private).

Discord renders Markdown itself, so final parts go out as written, except that the footnote block
(``[1] 《论语·为政》第12章`` lines ending the reply) becomes Discord subtext (``-# …``); a preview
longer than one message shows its start, with an open code fence closed so it renders cleanly.
:func:`channel_message` and :func:`interaction_message` say which platform message a sink's handle
is (adapters/common/lifecycle.py notes it, so a reaction on it finds the reply). Mentions are never
resolved from the model's text (the client sets ``AllowedMentions.none()``). discord.py retries 429s
inside each request, so a rate-limited edit simply stays in flight and the streamer adds no other
request meanwhile. It also retries 5xx a few times itself; what still fails with a 5xx or a dropped
connection becomes :class:`TransientDelivery`, which the streamer retries for final parts.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from typing import Any, Literal

import aiohttp
import discord
import structlog

from adapters.common.render import truncate
from adapters.common.split import split_text
from adapters.common.stream import TransientDelivery
from adapters.discord.buttons import view_kwargs
from adapters.discord.triggers import PLATFORM
from core.shown_in import ShownIn

log = structlog.get_logger(__name__)

MESSAGE_LIMIT = 2000
_INVALID_TOKEN_CODES = {50027, 10015}  # Invalid Webhook Token, Unknown Webhook
_FOOTNOTE = re.compile(r"^\[\d+\] \S")


def fit_preview(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """A streaming preview that fits one message, with an unbalanced ``` fence closed."""
    closer = "\n```" if text.count("```") % 2 else ""
    return truncate(text, limit - len(closer)) + closer


def footnotes_as_subtext(text: str) -> str:
    """Render the trailing footnote block (every line ``[n] ref``) as Discord subtext lines."""
    body, sep, block = text.rpartition("\n\n")
    lines = block.split("\n")
    if not all(_FOOTNOTE.match(line) for line in lines):
        return text
    return body + sep + "\n".join(f"-# {line}" for line in lines)


def split_final(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """The final text, footnotes as subtext, in parts of at most ``limit`` characters, fences balanced."""
    return split_text(footnotes_as_subtext(text), limit)


class transient_errors:
    """Turns what may pass (5xx after discord.py's own retries, a dropped connection) into TransientDelivery."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type, exc, tb) -> Literal[False]:
        if exc is None or isinstance(exc, TransientDelivery):
            return False
        if isinstance(exc, discord.DiscordServerError):
            raise TransientDelivery(f"HTTP {exc.status}") from exc
        if isinstance(exc, aiohttp.ClientConnectionError | ConnectionError):
            raise TransientDelivery(type(exc).__name__) from exc
        return False


class ChannelSink:
    """A reply written as plain messages in a channel, thread or DM.

    Args:
        channel: where to write (anything with ``send`` and ``typing``).
        reply_to: the message the first part replies to (no ping), or None.
    """

    def __init__(self, channel: discord.abc.Messageable, reply_to: discord.abc.Snowflake | None = None) -> None:
        self.channel = channel
        self.reply_to = reply_to
        self.sent: list[discord.Message] = []

    async def typing(self) -> None:
        await self.channel.typing()

    async def send(self, text: str, *, final: bool = False, extra: Mapping | None = None) -> discord.Message:
        kwargs = view_kwargs(final, extra)
        reference = self.reply_to if not self.sent else None
        if reference is not None:
            kwargs.update(reference=reference, mention_author=False)
        with transient_errors():
            message = await self.channel.send(text, **kwargs)
        self.sent.append(message)
        return message

    async def edit(
        self, handle: discord.Message, text: str, *, final: bool = False, extra: Mapping | None = None
    ) -> Any:
        with transient_errors():
            return await handle.edit(content=text, **view_kwargs(final, extra))

    def fit_preview(self, text: str) -> str:
        return fit_preview(text)

    def split_final(self, text: str) -> list[str]:
        return split_final(text)


class _Original:
    """Handle for the interaction's original (deferred) response."""


ORIGINAL = _Original()


class InteractionSink:
    """A reply to a deferred interaction: the original response, then follow-ups.

    For a slash command the original response is the deferred "thinking…" message; for a button
    click it is the message the button sits on, which the answer replaces.

    Args:
        interaction: the deferred interaction.
        private: the deferral was ephemeral; follow-ups are ephemeral too, and after expiry the
            reply continues in a DM instead of the channel.
        ttl: seconds from now (the sink is made as the interaction arrives) after which its token is
            no longer used.
        clock: monotonic clock in seconds (injectable for tests).
        channel: where a public reply continues after expiry (default: the interaction's channel;
            an interaction rebuilt from the inbox has none, adapters/discord/intake.py).
    """

    def __init__(
        self,
        interaction: discord.Interaction,
        *,
        private: bool = False,
        ttl: float = 14 * 60 + 30,
        clock: Callable[[], float] = time.monotonic,
        channel: discord.abc.Messageable | None = None,
    ) -> None:
        self.interaction = interaction
        self.channel: Any = channel or interaction.channel
        self.private = private
        self.clock = clock
        self.deadline = clock() + ttl
        self.fallback: ChannelSink | None = None
        self.original_message: discord.Message | None = None
        self.used = False

    @property
    def expired(self) -> bool:
        """True once the reply has moved (or must move) to plain messages."""
        return self.fallback is not None or self.clock() >= self.deadline

    async def typing(self) -> None:
        """The deferred response already shows "thinking…"; after expiry, type in the channel."""
        if self.expired:
            await self._channel_sink().typing()

    async def send(self, text: str, *, final: bool = False, extra: Mapping | None = None) -> Any:
        self.used = True
        if not self.expired:
            try:
                return await self._send_via_token(text, view_kwargs(final, extra))
            except discord.HTTPException as exc:
                self._raise_unless_token_dead(exc)
        return await self._channel_sink().send(text, final=final, extra=extra)

    async def edit(self, handle: Any, text: str, *, final: bool = False, extra: Mapping | None = None) -> Any:
        if isinstance(handle, discord.Message) and not isinstance(handle, discord.WebhookMessage):
            return await handle.edit(content=text, **view_kwargs(final, extra))  # already a channel message
        if not self.expired:
            try:
                return await self._edit_via_token(handle, text, view_kwargs(final, extra))
            except discord.HTTPException as exc:
                self._raise_unless_token_dead(exc)
        return await self._channel_sink().send(text, final=final, extra=extra)

    def fit_preview(self, text: str) -> str:
        return fit_preview(text)

    def split_final(self, text: str) -> list[str]:
        return split_final(text)

    async def _send_via_token(self, text: str, kwargs: dict[str, Any]) -> Any:
        if self.original_message is None:
            self.original_message = await self.interaction.edit_original_response(content=text, **kwargs)
            return ORIGINAL
        return await self.interaction.followup.send(text, ephemeral=self.private, wait=True, **kwargs)

    async def _edit_via_token(self, handle: Any, text: str, kwargs: dict[str, Any]) -> Any:
        if handle is ORIGINAL:
            self.original_message = await self.interaction.edit_original_response(content=text, **kwargs)
            return ORIGINAL
        return await handle.edit(content=text, **kwargs)

    def _raise_unless_token_dead(self, exc: discord.HTTPException) -> None:
        if exc.status == 401 or exc.code in _INVALID_TOKEN_CODES:
            log.info("discord_interaction_token_dead", interaction=str(self.interaction.id), status=exc.status)
            self._channel_sink()
            return
        if isinstance(exc, discord.DiscordServerError):
            raise TransientDelivery(f"HTTP {exc.status}") from exc
        raise exc

    def _channel_sink(self) -> ChannelSink:
        if self.fallback is None:
            log.info("discord_interaction_expired", interaction=str(self.interaction.id))
            target: Any = self.interaction.user if self.private else self.channel
            reply_to = None if self.private else self.original_message
            self.fallback = ChannelSink(target, reply_to=reply_to)
        return self.fallback


def channel_message(handle: Any) -> ShownIn | None:
    """Where a channel sink's handle is shown (a plain channel message)."""
    if isinstance(handle, discord.Message) and not isinstance(handle, discord.WebhookMessage):
        return ShownIn(PLATFORM, str(handle.channel.id), handle.id)
    return None


def interaction_message(sink: InteractionSink, handle: Any) -> ShownIn | None:
    """Where an interaction sink's handle is shown: its original response, a follow-up, or a channel
    message after the token expired; None for an ephemeral one (nobody can react to it)."""
    message = sink.original_message if handle is ORIGINAL else handle
    if isinstance(message, discord.Message) and not message.flags.ephemeral:
        return ShownIn(PLATFORM, str(message.channel.id), message.id)
    return None
