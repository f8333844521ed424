"""The `Engine` protocol's crash and delivery hooks for scripted engine doubles: recorded, not acted on."""

from __future__ import annotations

from core.shown_in import ShownIn


class RecordedHooks:
    """`record_shown`, `record_delivery` and `take_interrupted` as an engine double needs them."""

    shown: list[tuple[str, ShownIn]]
    deliveries: list[tuple[str, bool]]
    interrupted: list[ShownIn]

    async def record_shown(self, trace_id: str, where: ShownIn) -> None:
        self.__dict__.setdefault("shown", []).append((trace_id, where))

    async def record_delivery(self, trace_id: str, delivered: bool) -> None:
        self.__dict__.setdefault("deliveries", []).append((trace_id, delivered))

    def take_interrupted(self, platform: str) -> list[ShownIn]:
        waiting = self.__dict__.get("interrupted", [])
        mine = [w for w in waiting if w.platform == platform]
        self.__dict__["interrupted"] = [w for w in waiting if w not in mine]
        return mine

    def register_admin_check(self, platform: str, check) -> None:
        self.__dict__["admin_checks"] = self.__dict__.get("admin_checks", {}) | {platform: check}
