"""Scheduled posts into Discord channels (the `core.schedule.ports.Poster` of this adapter).

Target: the channel id the core knows — a text channel, a thread (a thread is a channel: a daily
passage set inside a thread is posted in that thread) or a DM channel. Each post takes the channel's
outbound budget, like a reply; discord.py waits out 429s inside each request. "gone": the channel or
thread no longer exists (404) or the bot may not post there (403, removed from the server) — never
retried; "failed": any other HTTP error or a dropped connection.
"""

from __future__ import annotations

import asyncio

import aiohttp
import discord
import structlog

from adapters.common.budget import BudgetRegistry
from adapters.discord.sink import MESSAGE_LIMIT, split_final
from core.quiz.ports import PostedQuiz, QuizPost
from core.schedule.ports import Posted
from core.shown_in import ShownIn

log = structlog.get_logger(__name__)

READY_WAIT_S = 60.0
"""A post due while the client is still connecting waits this long for it (then "failed")."""


class DiscordPoster:
    """Posts into Discord channels and threads for the scheduler.

    Args:
        client: the connected discord.py client.
        budgets: the per-channel budgets the client's replies use.
        interval_s: seconds between two requests to one channel (DISCORD_EDIT_INTERVAL_S).
    """

    def __init__(self, client: discord.Client, budgets: BudgetRegistry, *, interval_s: float = 1.2) -> None:
        self.client, self.budgets, self.interval_s = client, budgets, interval_s

    async def post_quiz(self, chat_id: str, quiz: QuizPost) -> PostedQuiz:
        """A quiz as a message with buttons (adapters/discord/quiz.py), in the channel's budget."""
        from adapters.discord.quiz import send_quiz

        budget = self.budgets.get(f"discord:{chat_id}", self.interval_s)
        await budget.acquire()
        try:
            return await send_quiz(self.client, chat_id, quiz)
        finally:
            await budget.done()

    async def close_quiz(self, chat_id: str, message_id: str, quiz: QuizPost, summary: str) -> None:
        from adapters.discord.quiz import show_closed

        await show_closed(self.client, chat_id, message_id, quiz, summary)

    async def post(self, chat_id: str, text: str) -> Posted:
        try:
            channel_id = int(chat_id)
        except ValueError:
            return Posted("gone", f"not a Discord channel id: {chat_id[:40]}")
        budget = self.budgets.get(f"discord:{chat_id}", self.interval_s)
        shown: list[ShownIn] = []
        try:
            await asyncio.wait_for(self.client.wait_until_ready(), READY_WAIT_S)
            channel = self.client.get_channel(channel_id) or await self.client.fetch_channel(channel_id)
            for part in split_final(text, MESSAGE_LIMIT):
                await budget.acquire()
                try:
                    message = await channel.send(part, allowed_mentions=discord.AllowedMentions.none())  # type: ignore[union-attr]
                finally:  # the slot's end reaches the gate other processes share too
                    await budget.done()
                shown.append(ShownIn("discord", str(channel_id), message.id))
        except (discord.Forbidden, discord.NotFound) as exc:
            return Posted("gone", f"{exc.status} {exc.text[:160]}", tuple(shown))
        except (discord.HTTPException, aiohttp.ClientError, TimeoutError) as exc:
            log.error("discord_post_failed", channel=chat_id, error=type(exc).__name__)
            return Posted("failed", type(exc).__name__, tuple(shown))
        return Posted("sent", "", tuple(shown))
