"""Group quizzes on Discord (core/quiz): Discord polls have no quiz mode, so a quiz is a message with
one button per option, answered ephemerally.

A press is a component interaction whose ``custom_id`` (``fuzi:quiz:<quiz id>:<option>``) carries
the answer, so the buttons work after a restart and in any process (:class:`QuizButton` is a
discord.py ``DynamicItem``). The core scores each person once; the presser alone sees right or wrong
with the cited passage, or "already answered" / "closed". Anyone in the channel may answer. When the
quiz closes, the message is edited: the buttons go, the right option, the explanation and the score
(how many answered, who was right) are shown.
"""

from __future__ import annotations

import re
from typing import Any

import aiohttp
import discord
import structlog

from core.quiz.ports import PostedQuiz, QuizAnswers, QuizPost
from core.texts import say

log = structlog.get_logger(__name__)

LETTERS = "ABCD"
LABEL_MAX = 80


class QuizButton(discord.ui.DynamicItem[discord.ui.Button], template=r"fuzi:quiz:(?P<quiz>\d{1,12}):(?P<option>\d)"):
    """One option of one quiz."""

    def __init__(self, quiz_id: int, option: int, label: str = "") -> None:
        text = f"{LETTERS[option]}. {label}" if label else LETTERS[option]
        button: discord.ui.Button = discord.ui.Button(
            label=text[:LABEL_MAX], style=discord.ButtonStyle.secondary, custom_id=f"fuzi:quiz:{quiz_id}:{option}"
        )
        super().__init__(button)
        self.quiz_id, self.option = quiz_id, option

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item, match: re.Match[str]
    ) -> QuizButton:
        return cls(int(match["quiz"]), int(match["option"]))

    async def callback(self, interaction: discord.Interaction) -> Any:
        quizzes: QuizAnswers | None = getattr(interaction.client, "quizzes", None)
        if quizzes is None or self.option >= len(LETTERS):
            line = say("QUIZ_UNKNOWN", None)
        else:
            user = interaction.user
            line = await quizzes.answer_button(self.quiz_id, f"discord:{user.id}", user.display_name, self.option)
        try:
            await interaction.response.send_message(line[:2000], ephemeral=True)
        except discord.HTTPException as exc:
            log.info("discord_quiz_answer_not_shown", error=type(exc).__name__)


def quiz_text(quiz: QuizPost) -> str:
    lines = [f"【小测 Quiz】{quiz.question}"]
    lines += [f"{LETTERS[i]}. {option}" for i, option in enumerate(quiz.options)]
    return "\n".join(lines)


def quiz_view(quiz: QuizPost) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for i, option in enumerate(quiz.options[: len(LETTERS)]):
        view.add_item(QuizButton(quiz.quiz_id, i, option))
    return view


async def send_quiz(client: discord.Client, chat_id: str, quiz: QuizPost) -> PostedQuiz:
    try:
        channel_id = int(chat_id)
    except ValueError:
        return PostedQuiz("gone", f"not a Discord channel id: {chat_id[:40]}")
    try:
        channel = client.get_channel(channel_id) or await client.fetch_channel(channel_id)
        message = await channel.send(  # type: ignore[union-attr]
            quiz_text(quiz), view=quiz_view(quiz), allowed_mentions=discord.AllowedMentions.none()
        )
    except (discord.Forbidden, discord.NotFound) as exc:
        return PostedQuiz("gone", f"{exc.status} {exc.text[:160]}")
    except (discord.HTTPException, aiohttp.ClientError, TimeoutError) as exc:
        return PostedQuiz("failed", type(exc).__name__)
    return PostedQuiz("sent", message_id=str(message.id))


async def show_closed(client: discord.Client, chat_id: str, message_id: str, quiz: QuizPost, summary: str) -> None:
    """The quiz's message without buttons, with the right option, the explanation and the score."""
    right = f"✅ {LETTERS[quiz.correct]}. {quiz.options[quiz.correct]}"
    text = f"{quiz_text(quiz)}\n\n{right}\n{quiz.explanation}\n{summary}"
    message = client.get_partial_messageable(int(chat_id)).get_partial_message(int(message_id))
    await message.edit(content=text[:2000], view=None)
