"""Who may change a chat's settings: the rule in one place, the platform's word through a port.

In a private chat the person owns its settings. In a group: bot operators (FUZI_ADMIN_IDS), then
the adapter's own word when the update carried it (`Incoming.sender_admin`: Discord permissions in
an interaction, a Telegram anonymous admin posting as the group), then the platform's `AdminCheck`
(Telegram `getChatMember`, cached by the adapter for at most 60 s). The terminal and the web chat
are one local person's: they own every chat they open. Any other platform without a check, or a
check that fails, cannot be verified: the change is refused.
"""

from __future__ import annotations

from typing import Literal

import structlog

from core.ports import AdminCheck
from core.types import Incoming

log = structlog.get_logger(__name__)

LOCAL_PLATFORMS = frozenset({"console", "web"})

Permission = Literal["owner", "operator", "admin", "not_admin", "unknown"]


class ChatAdmins:
    """The admin rule, with one `AdminCheck` per platform registered by the adapters.

    Args:
        operators: `platform:user_id` accounts (FUZI_ADMIN_IDS) allowed everywhere.
    """

    def __init__(self, operators: frozenset[str] = frozenset()):
        self._operators = operators
        self._checks: dict[str, AdminCheck] = {}

    def register(self, platform: str, check: AdminCheck) -> None:
        """The adapter of `platform` answers admin questions through `check` from now on."""
        self._checks[platform] = check

    async def permission(self, incoming: Incoming, *, fresh: bool = False) -> Permission:
        """Why the sender may change this chat's settings, or "not_admin" / "unknown" (cannot verify)."""
        if not incoming.is_group:
            return "owner"
        if incoming.account in self._operators:
            return "operator"
        if incoming.sender_admin is not None:
            return "admin" if incoming.sender_admin else "not_admin"
        check = self._checks.get(incoming.platform)
        if check is None:
            return "owner" if incoming.platform in LOCAL_PLATFORMS else "unknown"
        try:
            return "admin" if await check.is_admin(incoming.chat_id, incoming.user_id, fresh=fresh) else "not_admin"
        except Exception as exc:  # the platform did not answer: refuse, say why in one line
            log.warning("admin_check_failed", platform=incoming.platform, error=type(exc).__name__)
            return "unknown"

    async def may_change(self, incoming: Incoming, *, fresh: bool = False) -> bool:
        """True when `permission` allows a change."""
        return await self.permission(incoming, fresh=fresh) in ("owner", "operator", "admin")
