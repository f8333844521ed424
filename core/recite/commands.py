"""`/recite` and its subcommands (docs/learning.md "Recitation").

`/recite` a card · `/recite add <passage id or words>` · `/recite list` · `/recite remove <n>` ·
`/recite stats` · `/recite remind HH:MM [Area/City]` / `off` (private chats: the reminder is a DM) ·
`/recite again|hard|good|easy` (re-rate the last answer) · `/recite rate <review> <rating>` (what the
rating buttons send). Numbering in list/remove is the deck's order of adding.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import timedelta

import structlog

from core.chatsettings.values import BadValue, parse_daily
from core.ports import CommandResult, PassageSearch, Turn
from core.recite.deck import Recitation, both
from core.recite.scheduling import RATINGS
from core.texts import say

log = structlog.get_logger(__name__)

_PASSAGE_ID = re.compile(r"^[a-z]+:\d+(?:\.\d+)?$")
LIST_MAX = 50


class ReciteCommands:
    """The `/recite` command over a `Recitation`.

    Args:
        deck: cards, answers and ratings.
        search: the retrieval the bot answers with (`find_quote`): `/recite add <words>` finds the
            passage with it; None: only passage ids are accepted.
    """

    def __init__(self, deck: Recitation, search: PassageSearch | None = None) -> None:
        self.deck, self._search = deck, search

    def register(self, router) -> None:
        """Register `/recite` on a core.engine.commands.CommandRouter."""
        router.register(
            "recite", self.recite, summary_zh="背诵：间隔复习经典章句", summary_en="recite passages, spaced review"
        )

    async def recite(self, turn: Turn, args: str) -> CommandResult:
        words = unicodedata.normalize("NFKC", args).split()
        sub = words[0].lower() if words else ""
        rest = " ".join(words[1:])
        if not sub:
            return await self.deck.next_card(turn)
        if sub in RATINGS:
            return await self.deck.rerate(turn, sub)
        if sub == "rate" and len(words) == 3 and words[1].isdigit():
            return await self.deck.rerate(turn, words[2].lower(), int(words[1]))
        handler = {"add": self.add, "list": self.list, "remove": self.remove, "stats": self.stats}.get(sub)
        if handler is not None:
            return await handler(turn, rest)
        if sub == "remind":
            return await self.remind(turn, rest)
        return CommandResult(both("RECITE_USAGE"))

    async def add(self, turn: Turn, rest: str) -> CommandResult:
        if not rest:
            return CommandResult(both("RECITE_ADD_USAGE"))
        passage_id = rest.lower() if _PASSAGE_ID.match(rest.lower()) else await self._find(rest)
        passage = self.deck.passages.get(passage_id or "")
        if passage is None:
            return CommandResult(say("RECITE_NOT_FOUND", None, words=rest[:40]), extra={"found": False})
        added = await self.deck.store.add(turn.person_id, [passage.id], self.deck.now())
        name = "RECITE_ADDED" if added else "RECITE_ALREADY"
        return CommandResult(say(name, None, refs=passage.ref), extra={"passage": passage.id, "added": bool(added)})

    async def _find(self, words: str) -> str | None:
        """The passage `words` quote (verbatim, punctuation and script aside), else retrieval's best."""
        if self._search is None:
            return None
        try:
            if hasattr(self._search, "find_quote"):
                hits, _ = await self._search.find_quote(words, k=1)
            else:  # a search without the verbatim route
                hits = (await self._search.search(words, k=1)).results
        except Exception as exc:  # retrieval down: the person can still add by id
            log.warning("recite_find_failed", error=type(exc).__name__)
            return None
        return hits[0].id if hits else None

    async def list(self, turn: Turn, rest: str) -> CommandResult:
        cards = await self.deck.store.cards(turn.person_id)
        if not cards:
            return CommandResult(both("RECITE_LIST_EMPTY"), extra={"count": 0})
        lines = [say("RECITE_LIST_HEAD", None, n=len(cards))]
        for n, card in enumerate(cards[:LIST_MAX], 1):
            passage = self.deck.passages.get(card.passage_id)
            ref = passage.ref if passage else card.passage_id
            lines.append(f"{n}. {ref}（{card.passage_id}）→ {await self.deck.due_text(turn.person_id, card.due)}")
        if len(cards) > LIST_MAX:
            lines.append(say("RECITE_LIST_MORE", None, n=len(cards) - LIST_MAX))
        return CommandResult("\n".join(lines), extra={"count": len(cards)})

    async def remove(self, turn: Turn, rest: str) -> CommandResult:
        if not (rest.isascii() and rest.isdigit()):
            return CommandResult(both("RECITE_USAGE"))
        n = int(rest)
        cards = await self.deck.store.cards(turn.person_id)
        if not 1 <= n <= len(cards):
            return CommandResult(say("RECITE_NO_SUCH", None, n=n))
        card = cards[n - 1]
        await self.deck.store.remove(turn.person_id, card.id or 0)
        passage = self.deck.passages.get(card.passage_id)
        return CommandResult(
            say("RECITE_REMOVED", None, n=n, ref=passage.ref if passage else card.passage_id),
            extra={"passage": card.passage_id},
        )

    async def stats(self, turn: Turn, rest: str) -> CommandResult:
        now = self.deck.now()
        local = now.astimezone(await self.deck.zone_of(turn.person_id))
        start = local.replace(hour=0, minute=0, second=0, microsecond=0)
        stats = await self.deck.store.stats(turn.person_id, now, start + timedelta(days=1), start)
        retention = f"{stats.retention:.0%}" if stats.retention is not None else "—"
        text = both(
            "RECITE_STATS",
            cards=stats.cards,
            due_now=stats.due_now,
            due_today=stats.due_today,
            reviewed=stats.reviewed,
            today=stats.reviewed_today,
            retention=retention,
        )
        return CommandResult(text, extra={"stats": stats.__dict__})

    async def remind(self, turn: Turn, rest: str) -> CommandResult:
        inc = turn.incoming
        store = self.deck.store
        current = await store.reminder(turn.person_id)
        try:
            parsed = parse_daily(rest, current.zone if current else self.deck.zone)
        except BadValue as exc:
            return CommandResult(str(exc), extra={"refused": True})
        if parsed is None:
            gone = await store.clear_reminder(turn.person_id)
            return CommandResult(
                say("RECITE_REMIND_OFF" if gone else "RECITE_REMIND_NONE", None), extra={"remind": None}
            )
        if inc.is_group:
            return CommandResult(say("RECITE_REMIND_DM", None), extra={"refused": True})
        at, zone = parsed
        await store.set_reminder(turn.person_id, inc.chat_key, f"{at:%H:%M}", zone, self.deck.now())
        log.info("recite_remind_set", person=turn.person_id, at=f"{at:%H:%M}", zone=zone)
        return CommandResult(
            say("RECITE_REMIND_SET", None, at=f"{at:%H:%M}", zone=zone), extra={"remind": f"{at:%H:%M}"}
        )
