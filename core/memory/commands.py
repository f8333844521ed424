"""Memory commands: /remember, /memories, /forget, /profile, /reset, /link, /unlink.

Replies are short, Chinese first then English, like the built-in commands. Numbering in
/memories and /forget <n> is over the facts visible in the current chat (private facts are never
listed in a group), so the same list is shown and deleted from.
"""

from __future__ import annotations

import asyncio
import math
import unicodedata
from collections.abc import Awaitable, Callable

import structlog

from core.memory.blocks import GROUP_PROFILE_KEYS, profile_lines
from core.memory.facts import FactLimitReached, FactRefused, FactStore
from core.memory.history import ChatHistory
from core.memory.linking import CODE_DIGITS, AccountLinker, LinkResult
from core.memory.profile import ProfileStore
from core.memory.summary import ChatMemoryStore
from core.ports import CommandResult, PersonData, Turn
from core.texts import say

log = structlog.get_logger(__name__)

FACT_REFUSED_TEXT = say("FACT_REFUSED", None)  # a command carries no language hint: both languages

SPECS = (
    ("remember", "记住一件事", "remember something about you"),
    ("memories", "看看夫子记得你什么", "list what Fuzi remembers about you"),
    ("forget", "忘记第 n 条记忆，或 all 全部忘记", "forget memory n, or all"),
    ("profile", "看看夫子对你的推断画像", "show your inferred profile"),
    ("reset", "清空本对话的近期上下文与前情提要", "clear this chat's recent context and summary"),
    ("link", "关联你在其他平台的账号", "link your accounts on other platforms"),
    ("unlink", "解除本账号的关联", "unlink this account"),
)


class MemoryCommands:
    """The memory command handlers.

    Args:
        facts: long-term facts.
        profiles: inferred profiles.
        chats: per-chat summary state.
        history: stored-message queries.
        linker: account linking.
        window_rounds: most rounds the prompt shows (the window and the unfolded tail: to say what /reset cleared).
        link_ttl_s: code lifetime, for the /link reply.
    """

    def __init__(
        self,
        *,
        facts: FactStore,
        profiles: ProfileStore,
        chats: ChatMemoryStore,
        history: ChatHistory,
        linker: AccountLinker,
        window_rounds: int = 5,
        link_ttl_s: float = 600,
    ):
        self._facts, self._profiles, self._chats = facts, profiles, chats
        self._history, self._linker = history, linker
        self.window_rounds = window_rounds
        self.link_ttl_s = link_ttl_s
        self._parts: list[PersonData] = []  # keyed by person: the recitation deck
        self._erasers: list[Callable[[list[str]], Awaitable[int]]] = []  # keyed by accounts: quiz scores

    def add_person_data(self, part: PersonData) -> None:
        """Another part's per-person data (the recitation deck): `/forget all` deletes it too and
        `/memories` says it exists."""
        self._parts.append(part)

    async def _parts_lines(self, person_id: int) -> list[str]:
        found = [await part.describe_person(person_id) for part in self._parts]
        return [line for line in found if line]

    def also_forget(self, eraser: Callable[[list[str]], Awaitable[int]]) -> None:
        """`/forget all` also calls `eraser(accounts)` (e.g. the person's quiz scores); it returns how
        many rows it deleted. A failing eraser is logged and the others still run."""
        self._erasers.append(eraser)

    def register(self, router) -> None:
        """Register every memory command on ``router`` (a core.engine.commands.CommandRouter)."""
        for name, zh, en in SPECS:
            # /remember's fact goes through the fact screen where it is stored (FactStore.add)
            screens = name == "remember" and self._facts.screened
            router.register(name, getattr(self, name), summary_zh=zh, summary_en=en, screens_input=screens)

    # ---------------------------------------------------------------- facts
    async def remember(self, turn: Turn, args: str) -> CommandResult:
        if not args.strip():
            return CommandResult("用法：/remember 要记住的事。Usage: /remember <text>")
        limit = self._facts.max_chars
        if len(" ".join(args.split())) > limit:  # refused whole rather than silently cut
            return CommandResult(
                f"这件事太长（上限 {limit} 字），请拣要紧处简短说，再 /remember。"
                f"Too long to remember (limit {limit} characters); please say it shorter."
            )
        inc = turn.incoming
        try:
            fact, created = await self._facts.add(
                turn.person_id, args, is_group=inc.is_group, account=inc.account, chat_key=inc.chat_key
            )
        except FactRefused:
            return CommandResult(FACT_REFUSED_TEXT, extra={"refused": True})
        except FactLimitReached:
            return CommandResult(
                f"记忆已满（{self._facts.max_facts} 条），请先 /forget 一些。Memory is full; /forget some first."
            )
        if not created:
            return CommandResult("这件事夫子已经记得了。Already remembered.")
        where = "群聊中记下的事，在任何对话里都可能用到" if fact.scope == "group" else "私密：只在私聊中使用"
        return CommandResult(f"记下了：{fact.text}\n（{where}）Remembered.")

    async def memories(self, turn: Turn, args: str) -> CommandResult:
        facts = await self._facts.visible(turn.person_id, in_group=turn.incoming.is_group)
        kept = await self._parts_lines(turn.person_id)
        also = "".join(f"\n{line}" for line in kept)
        if not facts:
            return CommandResult("夫子尚未记得你的任何事。用 /remember 让夫子记住。No memories yet." + also)
        in_group = turn.incoming.is_group
        lines = [
            f"{n}. {f.text}（{f.created_at:%Y-%m-%d}{_scope_note(f.scope, in_group)}）" for n, f in enumerate(facts, 1)
        ]
        note = "\n（私聊中记下的事不在群里显示。Private memories are not shown in groups.）" if in_group else ""
        return CommandResult("夫子记得 / Memories:\n" + "\n".join(lines) + note + also, extra={"count": len(facts)})

    async def forget(self, turn: Turn, args: str) -> CommandResult:
        arg = _plain(args).lower()
        if arg == "all":
            return await self._forget_all(turn)
        if not _is_number(arg):
            return CommandResult("用法：/forget <编号> 或 /forget all。Usage: /forget <n> | /forget all")
        facts = await self._facts.visible(turn.person_id, in_group=turn.incoming.is_group)
        n = int(arg)
        if not 1 <= n <= len(facts):
            return CommandResult(f"没有第 {n} 条记忆；发 /memories 查看编号。No memory #{n}; see /memories.")
        await self._facts.delete(turn.person_id, [facts[n - 1].id])
        return CommandResult(f"已忘记第 {n} 条：{facts[n - 1].text}。Forgotten.")

    async def _forget_all(self, turn: Turn) -> CommandResult:
        n_facts = await self._facts.delete_all(turn.person_id)
        had_profile = await self._profiles.delete(turn.person_id)
        accounts = await self._linker.accounts(turn.person_id)
        n_messages, chats = await asyncio.to_thread(self._history.forget_accounts, accounts)
        await asyncio.to_thread(self._chats.clear_summaries, chats)
        others = 0
        for part in self._parts:  # the recitation deck and its reminder
            others += await part.forget_person(turn.person_id)
        for erase in self._erasers:
            try:
                await erase(accounts)
            except Exception:
                log.exception("forget_all_part_failed", person=turn.person_id)
        log.info("forget_all", person=turn.person_id, facts=n_facts, profile=had_profile, messages=n_messages)
        if turn.incoming.is_group:  # counts would hint at private memories
            return CommandResult("已全部忘记你的记忆、画像与聊天记录。Everything forgotten.")
        profile = "和推断画像" if had_profile else ""
        return CommandResult(
            f"已全部忘记：{n_facts} 条记忆{profile}，以及你的 {n_messages} 条聊天记录"
            f"{f'、{others} 张背诵卡' if others else ''}。Everything forgotten.",
            extra={"facts": n_facts, "profile": had_profile, "messages": n_messages, "cards": others},
        )

    async def profile(self, turn: Turn, args: str) -> CommandResult:
        profile = await self._profiles.get(turn.person_id)
        if turn.incoming.is_group:  # the same keys the group prompts use
            profile = {k: v for k, v in profile.items() if k in GROUP_PROFILE_KEYS}
        lines = profile_lines(profile)
        if not lines:
            return CommandResult("夫子对你尚无推断画像。No inferred profile yet.")
        return CommandResult("夫子的推断（可能有误，/forget all 可清除）/ Inferred profile:\n" + "\n".join(lines))

    # ---------------------------------------------------------------- chat context
    async def reset(self, turn: Turn, args: str) -> CommandResult:
        key = turn.incoming.chat_key
        state = await asyncio.to_thread(self._chats.get, key)
        window = await asyncio.to_thread(
            self._history.window, key, after_id=state.overflow_after, limit=2 * self.window_rounds
        )
        last = await asyncio.to_thread(self._history.last_id, key)
        before = await asyncio.to_thread(self._chats.reset, key, last)
        summary = "和前情提要" if before.summary else ""
        return CommandResult(
            f"已清空本对话的近期 {len(window)} 条消息{summary}；夫子从头听起。聊天记录仍保存，/forget all 可删除你的记录。"
            f"Cleared {len(window)} recent messages{' and the summary' if before.summary else ''}.",
            extra={"window": len(window), "summary": bool(before.summary)},
        )

    # ---------------------------------------------------------------- linking
    async def link(self, turn: Turn, args: str) -> CommandResult:
        inc = turn.incoming
        if inc.is_group:
            return CommandResult("关联码请在私聊中使用，以免被旁人看到。Use /link in a private chat.")
        code = _plain(args).replace(" ", "")
        if code and not (_is_number(code) and len(code) == CODE_DIGITS):  # a typo, not a guess: no try spent
            return CommandResult(
                f"关联码是 {CODE_DIGITS} 位数字，如 /link 123456。A link code has {CODE_DIGITS} digits, e.g. /link 123456.",
                extra={"status": "invalid"},
            )
        if not code:
            code = await self._linker.issue(turn.person_id, inc.account)
            minutes = math.ceil(self.link_ttl_s / 60)
            return CommandResult(
                f"你的关联码：{code}（{minutes} 分钟内有效，只能用一次）。在另一平台私聊夫子，发送 /link {code}。"
                f"Your link code: {code} (valid {minutes} min, single use).",
                extra={"code": code},
            )
        result = await self._linker.redeem(turn.person_id, inc.platform, inc.user_id, code)
        return CommandResult(_redeem_text(result), extra={"status": result.status})

    async def unlink(self, turn: Turn, args: str) -> CommandResult:
        inc = turn.incoming
        result = await self._linker.unlink(turn.person_id, inc.platform, inc.user_id)
        if result.status == "not_linked":
            return CommandResult("本账号没有关联其他账号。This account is not linked.", extra={"status": result.status})
        return CommandResult(
            "已解除关联：本账号自此单独记忆，在此账号记下的事随本账号。Unlinked.", extra={"status": result.status}
        )


def _plain(args: str) -> str:
    """NFKC-normalised, stripped arguments: full-width digits from a Chinese IME (１２３) become 123."""
    return unicodedata.normalize("NFKC", args).strip()


def _is_number(text: str) -> bool:
    """ASCII digits only (str.isdigit also accepts ² and other digits int() rejects)."""
    return text.isascii() and text.isdigit()


def _scope_note(scope: str, in_group: bool) -> str:
    """In a private listing, mark the facts that may also be used in groups."""
    return "，群聊可用" if scope == "group" and not in_group else ""


def _redeem_text(result: LinkResult) -> str:
    """The reply to /link <code>."""
    status = result.status
    if status == "linked":
        return "关联成功：你的各个账号从此共用记忆、画像与额度。Accounts linked."
    if status == "same_person":
        return "这两个账号已经关联了。Already linked."
    if status == "rate_limited":
        minutes = math.ceil((result.retry_after_s or 60) / 60)
        return f"错误次数过多，请 {minutes} 分钟后再试。Too many wrong codes; try again in {minutes} min."
    left = f"（还可再试 {result.tries_left} 次）" if result.tries_left is not None else ""
    return f"关联码无效或已过期{left}。Invalid or expired code."
