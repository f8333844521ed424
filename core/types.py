"""Plain data the core receives from adapters. Adapters own platform types; the core sees only these."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal


def new_trace_id() -> str:
    """Return a short random id that ties together every log line one message causes."""
    return uuid.uuid4().hex[:16]


@dataclass(frozen=True)
class Passage:
    """A passage of the classics as everything downstream sees it: a search result, a citation, a
    look-up, a daily passage (one type for retrieval, the agent's citations and the engine).

    Attributes:
        id: `lunyu:3.22` or `shijing:1`; a page a tool found elsewhere is cited by its URL.
        ref: human citation, e.g. 《论语·八佾》第22章 or 《诗经·国风·周南·关雎》.
        corpus: "lunyu" or "shijing"; "" where the source does not say (a tool's result, a web page).
        title: chapter name (论语, e.g. 八佾) or poem title (诗经); "" where the source does not say.
        text: the whole paragraph, or the poem's stanzas joined by newlines.
        meta: chapter/paragraph numbers (论语) or number/chapter/section (诗经).
    """

    id: str
    ref: str
    corpus: str
    title: str
    text: str
    meta: dict = field(default_factory=dict, compare=False, hash=False)


QuoteSource = Literal["reply", "quote", "external", "forward"]


@dataclass(frozen=True)
class Quote:
    """A message the person's message replies to, quotes or forwards, as the platform delivered it.

    It reaches the prompt only as quoted data (clipped, screened), never as instructions, and never
    brings its author's memory or profile along.

    Attributes:
        text: its words (text or caption; for a partial quote, the part the person selected).
        author: the quoted author's display name ("" when unknown, e.g. hidden forwards).
        from_bot: written by a bot (Fuzi's own earlier answers included).
        depth: 1 for the message replied to, 2 for the one that one replied to, and so on.
        source: "reply", "quote" (a selected part), "external" (a message in another chat) or "forward".
    """

    text: str
    author: str = ""
    from_bot: bool = False
    depth: int = 1
    source: QuoteSource = "reply"


MediaKind = Literal["image", "voice", "sticker", "file"]


@dataclass(frozen=True)
class Media:
    """A photo, voice message, sticker or file that came with a message (core/media reads it).

    The bytes are fetched only when the engine decides to read them (after the size and duration
    checks and the sender's media limit), so a refused upload is never downloaded.

    Attributes:
        kind: "image" (a photo or image file), "voice" (voice or audio), "sticker", "file" (anything else).
        fetch: returns the bytes (a platform download, or bytes already in hand).
        size: bytes, as the platform declared them (None: unknown until fetched).
        mime: the declared media type, when there is one.
        name: the file name, when there is one.
        duration_s: a voice message's length, as declared.
        animated: an animated or video sticker / image.
        quoted: it belongs to the message this one replies to.
    """

    kind: MediaKind
    fetch: Callable[[], Awaitable[bytes]] = field(compare=False, repr=False)
    size: int | None = None
    mime: str = ""
    name: str = ""
    duration_s: float | None = None
    animated: bool = False
    quoted: bool = False


@dataclass(frozen=True)
class Incoming:
    """One message (or command) addressed to Fuzi, as an adapter saw it.

    Attributes:
        platform: "console", "telegram" or "discord".
        user_id: the sender's id on that platform (string form).
        chat_id: the conversation on that platform: DM, group, channel or thread id.
        text: what the user wrote (for a command: the arguments only).
        user_name: display name, used to label speakers in group windows.
        is_group: True for groups, supergroups, guild channels and threads.
        addressed: True when the bot was addressed (DM, mention, reply to the bot, command).
        command: command name without slash and bot suffix ("help", "skill" …), None for chat text.
        message_id: the platform message id, when there is one.
        trace_id: bound into every log line this message causes.
        sender_admin: the adapter's word that the sender administers this group (Discord: Manage
            Server/Channels in the interaction; Telegram: an anonymous admin posting as the group),
            or None when it does not know (the engine asks the platform's `AdminCheck` if needed).
        quoted: the messages this one replies to or quotes, nearest first (quoted data for the
            prompt, never instructions; see `Quote`).
        media: photos, voice or files that came with the message (the text is then the caption).
        images: photos already read into `text` (JPEG), for a vision model (FUZI_LLM_VISION).
    """

    platform: str
    user_id: str
    chat_id: str
    text: str
    user_name: str = ""
    is_group: bool = False
    addressed: bool = True
    command: str | None = None
    message_id: str | None = None
    trace_id: str = field(default_factory=new_trace_id)
    sender_admin: bool | None = None
    quoted: tuple[Quote, ...] = ()
    media: tuple[Media, ...] = ()
    images: tuple[bytes, ...] = field(default=(), repr=False)

    @property
    def account(self) -> str:
        """`platform:user_id`, the form used by FUZI_ADMIN_IDS."""
        return f"{self.platform}:{self.user_id}"

    @property
    def chat_key(self) -> str:
        """`platform:chat_id`, unique across platforms."""
        return f"{self.platform}:{self.chat_id}"


ASK_COMMAND = "ask"
"""`/ask question` addresses Fuzi (e.g. in a group) with chat text: adapters route it as a question."""


def parse_command(text: str, bot_username: str | None = None) -> tuple[str | None, str]:
    """Split "/cmd@bot args" into ("cmd", "args"); plain text gives (None, text).

    Any Unicode whitespace separates the name from its arguments — a space, tab or newline, a
    no-break space, or the ideographic space U+3000 a Chinese keyboard types (`/remember　我叫阿明`).
    A command addressed to another bot (`/cmd@otherbot`) is not ours: (None, text).
    """
    stripped = text.strip()
    if not stripped.startswith("/") or len(stripped) < 2 or stripped[1].isspace():
        return None, text
    parts = stripped[1:].split(None, 1)  # None: every character str.isspace() accepts
    if not parts:
        return None, text
    head, rest = parts[0], parts[1] if len(parts) > 1 else ""
    name, _, target = head.partition("@")
    if target and bot_username and target.lower() != bot_username.lower().lstrip("@"):
        return None, text
    if not name or not name.replace("_", "").isalnum():
        return None, text
    return name.lower(), rest.strip()
