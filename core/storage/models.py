"""SQLModel tables: people, their platform accounts, chats and every message said in them."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Index, UniqueConstraint
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    """Timezone-aware now in UTC (the default for every created_at)."""
    return datetime.now(UTC)


class Person(SQLModel, table=True):
    """A human. Accounts on several platforms that were linked share one person."""

    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = Field(default_factory=utcnow)


class Account(SQLModel, table=True):
    """One platform identity (`platform` + `platform_user_id`) belonging to a person."""

    __table_args__ = (UniqueConstraint("platform", "platform_user_id", name="uq_account_platform_user"),)

    id: int | None = Field(default=None, primary_key=True)
    platform: str = Field(max_length=32)
    platform_user_id: str = Field(max_length=128)
    person_id: int = Field(foreign_key="person.id", index=True)
    display_name: str = Field(default="", max_length=256)
    created_at: datetime = Field(default_factory=utcnow)


class Chat(SQLModel, table=True):
    """A conversation (`platform:chat_id`) and its per-chat settings."""

    key: str = Field(primary_key=True, max_length=200)
    platform: str = Field(max_length=32)
    is_group: bool = False
    skill: str | None = Field(default=None, max_length=64)
    no_llm_noticed: bool = False  # the "answering from the texts only" notice was shown once
    created_at: datetime = Field(default_factory=utcnow)


class Message(SQLModel, table=True):
    """One thing said in a chat: a user message or an assistant reply.

    Attributes:
        role: "user" or "assistant".
        speaker: display name of who said it (labels speakers in group windows).
        account: `platform:user_id` of the sender (empty for the assistant).
        shown_in: where an assistant reply is shown, ``<platform>:<chat>:<message>`` (core/shown_in.py).
        level: fallback level of an assistant reply (0 agent, 1 plain LLM, 2 retrieval-only).
        status: "ok" for normal messages; for user messages that got no answer the reason
            ("too_long", "injection", "busy", "rate_limited" …); for replies "cancelled" or "blocked".
        quoted: the messages a question quoted, screened and clipped (core/memory/quotes.py), as JSON
            ``[{"text","author","from_bot","depth","source"}]``; None when it quoted nothing.
    """

    __table_args__ = (
        Index("ix_message_chat_key_id", "chat_key", "id"),
        Index("ix_message_person_id_id", "person_id", "id"),  # a person's questions after the profile's mark (0033)
        Index("ix_message_status_role", "status", "role"),  # the repair sweep looks for "streaming" replies
        Index("ix_message_trace_id", "trace_id"),  # a reply and its question by trace (feedback, 0022_i22)
        Index("ix_message_shown_in", "shown_in"),  # a reaction on a platform message finds its reply (0024_i21c)
        Index("ix_message_created_at", "created_at"),  # the operator console's window (0031_operators)
    )

    id: int | None = Field(default=None, primary_key=True)
    chat_key: str = Field(max_length=200)
    person_id: int | None = None
    account: str = Field(default="", max_length=200)
    speaker: str = Field(default="", max_length=256)
    role: str = Field(max_length=16)
    text: str
    level: int | None = None
    status: str = Field(default="ok", max_length=32)
    trace_id: str = Field(default="", max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    heartbeat_at: datetime | None = None  # a running reply's owner renews it; stale: the owner died
    shown_in: str | None = Field(default=None, max_length=200)
    quoted: str | None = None  # data someone else wrote, kept with the question (0027_i33_quoted)


# ---- web: token revocations, chat titles, the citations of each reply --------------------


class TokenRevocation(SQLModel, table=True):
    """`fuzi token revoke --user NAME`: that web person's tokens issued before `revoked_at` stop working."""

    __tablename__ = "token_revocation"

    user: str = Field(primary_key=True, max_length=64)
    revoked_at: datetime = Field(default_factory=utcnow)


class ChatTitle(SQLModel, table=True):
    """The title a chat list shows: the first question, until the person renames the chat."""

    __tablename__ = "chat_title"

    chat_key: str = Field(primary_key=True, max_length=200)
    title: str = Field(max_length=200)
    updated_at: datetime = Field(default_factory=utcnow)


class ReplyCitations(SQLModel, table=True):
    """The footnotes of one reply (`trace_id`), as JSON `[{"n","id","ref"}]` (core/storage/citations.py):
    a web history shows them again, `fuzi feedback` names the passages a judged answer cited."""

    __tablename__ = "reply_citations"

    trace_id: str = Field(primary_key=True, max_length=64)
    chat_key: str = Field(max_length=200, index=True)
    data: str = "[]"


class ReplyPart(SQLModel, table=True):
    """A message an answer is shown in besides its own (0026_i33_parts): the later messages of a
    split answer, and every message of an answer a restarted process could not edit (a Discord
    interaction's response). The reply's own message is its row's `message.shown_in`; a reaction on
    any of them finds the reply (`FeedbackRepo.reply_at`). No words are kept here, only the reference.

    Attributes:
        shown_in: the message, ``<platform>:<chat>:<message>`` (core/shown_in.py).
        trace_id: the reply's trace.
        part: the message's place in the answer (0 the first).
    """

    __tablename__ = "reply_part"

    shown_in: str = Field(primary_key=True, max_length=200)
    trace_id: str = Field(max_length=64, index=True)
    part: int = 0


class ChatSettingsRow(SQLModel, table=True):
    """A chat's settings beyond its skill (which stays in `chat.skill`); no row means the defaults.

    Attributes:
        script: "simplified" or "traditional"; None follows the script each person writes in.
        daily_time: local "HH:MM" of the daily passage; None: no daily passage.
        daily_zone: IANA zone of `daily_time` (set together with it).
        digest: the opt-in daily commentary on a group's conversation.
        books: the books the daily passage is drawn from, comma-separated ids; None: every book.
        quiz_time / quiz_zone: local "HH:MM" and IANA zone of the daily group quiz; None: none.
        model: the model this chat's LLM calls use (one of FUZI_LLM_MODELS); None: FUZI_LLM_MODEL.
    """

    __tablename__ = "chat_settings"

    chat_key: str = Field(primary_key=True, max_length=200)
    script: str | None = Field(default=None, max_length=16)
    daily_time: str | None = Field(default=None, max_length=5)
    daily_zone: str | None = Field(default=None, max_length=64)
    digest: bool = False
    books: str | None = Field(default=None, max_length=100)
    model: str | None = Field(default=None, max_length=100)  # the chat's LLM (FUZI_LLM_MODELS); None: default
    updated_at: datetime = Field(default_factory=utcnow)
    quiz_time: str | None = Field(default=None, max_length=5)
    quiz_zone: str | None = Field(default=None, max_length=64)


class ChatSettingChange(SQLModel, table=True):
    """One change of a chat setting: which, from what, to what, by whom (`platform:user_id`), when."""

    __tablename__ = "chat_setting_change"
    __table_args__ = (Index("ix_chat_setting_change_chat_key_id", "chat_key", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    chat_key: str = Field(max_length=200)
    field: str = Field(max_length=16)
    old_value: str | None = Field(default=None, max_length=128)
    new_value: str | None = Field(default=None, max_length=128)
    account: str = Field(max_length=200)
    created_at: datetime = Field(default_factory=utcnow)


class ReplyFeedback(SQLModel, table=True):
    """One person's verdict on one reply (a 👍/👎 reaction or the web page's buttons); the latest counts.

    Attributes:
        trace_id: the reply's trace (its assistant row and question share it).
        account: `platform:user_id` of who reacted.
        verdict: "up" or "down".
        emoji: the reaction as sent ("👍", "🔥" …; "button" from the web page).
    """

    __tablename__ = "reply_feedback"
    __table_args__ = (UniqueConstraint("trace_id", "account", name="uq_reply_feedback_trace_account"),)

    id: int | None = Field(default=None, primary_key=True)
    trace_id: str = Field(max_length=64, index=True)
    platform: str = Field(max_length=32)
    account: str = Field(max_length=200)
    verdict: str = Field(max_length=8)
    emoji: str = Field(default="", max_length=32)
    created_at: datetime = Field(default_factory=utcnow, index=True)


class ReplyStats(SQLModel, table=True):
    """What one answer cost and how it went, written with its text (`ReplyRepo.finish`, 0031_operators):
    the figures of the operator console (core/storage/operators.py).

    Attributes:
        trace_id: the reply's trace (its assistant row and question share it).
        platform / chat_key / person_id: where and for whom.
        level: 0 agent, 1 plain LLM (degraded), 2 the texts alone.
        model: the model the reply's LLM calls used (None: no model answered, level 2).
        prompt_tokens / completion_tokens: summed over the reply's model calls.
        first_visible_ms: from the reply's start to its first text shown (None: nothing streamed).
        final_ms: from the reply's start to its final text.
        cited: how many passages the answer cites (0: no passage found).
    """

    __tablename__ = "reply_stats"
    __table_args__ = (Index("ix_reply_stats_created_at", "created_at"),)

    trace_id: str = Field(primary_key=True, max_length=64)
    platform: str = Field(max_length=32)
    chat_key: str = Field(max_length=200)
    person_id: int | None = Field(default=None, index=True)
    level: int
    model: str | None = Field(default=None, max_length=100)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    first_visible_ms: int | None = None
    final_ms: int = 0
    cited: int = 0
    created_at: datetime = Field(default_factory=utcnow)


class InboxRow(SQLModel, table=True):
    """One platform update taken by Fuzi, kept until its handling ended (core/inbox).

    Attributes:
        platform, key: the update's platform and the platform's id of it (unique together).
        payload: the update as the platform sent it (JSON text).
        status: "pending", "done", "lost" or "failed" (core/inbox/store.py).
        owner: the process handling it; ``heartbeat_at``: when it last renewed the entry.
        attempts: how many processes claimed it after its owner went silent.
    """

    __tablename__ = "inbox"
    __table_args__ = (
        UniqueConstraint("platform", "key", name="uq_inbox_platform_key"),
        Index("ix_inbox_status_heartbeat", "status", "heartbeat_at"),  # the sweep's orphans
        Index("ix_inbox_owner_status", "owner", "status"),  # each process's heartbeat
        Index("ix_inbox_closed_at", "closed_at"),  # the daily purge
    )

    id: int | None = Field(default=None, primary_key=True)
    platform: str = Field(max_length=32)
    key: str = Field(max_length=128)
    payload: str
    status: str = Field(default="pending", max_length=16)
    owner: str = Field(max_length=64)
    attempts: int = 0
    received_at: datetime = Field(default_factory=utcnow)
    heartbeat_at: datetime = Field(default_factory=utcnow)
    closed_at: datetime | None = None
