"""`fuzi run telegram|discord|all`: the platform bots (Procfile uses these)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.settings import Settings


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run the Telegram and/or Discord bot")
    p.add_argument("platform", choices=["telegram", "discord", "all"])
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from adapters.common.metrics import FuziMetrics, ObservedEngine
    from bot.first_start import prepare_data
    from bot.logging import setup_logging
    from bot.schedule import running_scheduler
    from bot.settings import SettingsError, load_settings
    from bot.shared_state import build_budgets, build_pace, build_seen
    from bot.wiring import open_runtime
    from core.ports import Engine
    from core.schedule.digest import DigestTap
    from core.schedule.ports import Posters

    settings = load_settings()
    setup_logging(settings)
    wanted = ["telegram", "discord"] if args.platform == "all" else [args.platform]
    for name in wanted:
        if getattr(settings, name).bot_token is None:
            raise SettingsError(f"missing setting {name.upper()}_BOT_TOKEN: needed for `fuzi run {name}`")

    from adapters.common.startup import PlatformRejected, PlatformStatus
    from bot.errors import StartupError

    async def main() -> int:
        first_build = await prepare_data(settings)
        metrics = FuziMetrics() if settings.metrics_port else None
        platforms = PlatformStatus()  # /readyz says not ready while a platform is still being reached
        started: list = []  # the runtime, once built: /readyz answers 503 "starting" until then
        async with (
            _ops_port(settings, lambda: started[0] if started else None, metrics, platforms),
            open_runtime(settings, metrics, first_build=first_build, status=platforms) as runtime,
            # each bot adds its poster once connected; the scheduler and the quizzes post through them
            running_scheduler(settings, runtime, runtime.posters or Posters()),
        ):
            posters = runtime.posters
            started.append(runtime)
            engine: Engine = ObservedEngine(runtime.engine, metrics) if metrics else runtime.engine
            if runtime.digest is not None and settings.schedule.enabled:  # digest groups: messages kept for it
                engine = DigestTap(engine, runtime.digest)
            # every update kept until answered (the inbox, in SQL); Telegram's albums answered already,
            # the bot-wide send schedule and the per-chat budgets: shared in Redis between replicas (in
            # process without FUZI_REDIS_URL)
            extra: dict[str, dict[str, Any]] = {
                name: {
                    "status": platforms,
                    "inbox": runtime.inbox,
                    "budgets": build_budgets(settings, runtime.redis, name),
                    "posters": posters,
                    "quizzes": runtime.quizzes,
                }
                for name in wanted
            }
            if "telegram" in extra:
                extra["telegram"] |= {
                    "seen": build_seen(settings, runtime.redis),
                    "pace": build_pace(settings, runtime.redis),
                    "reading": reading_link(settings),
                } | ({"recorder": metrics} if metrics else {})
            bots = asyncio.gather(*(_runner(name)(getattr(settings, name), engine, **extra[name]) for name in wanted))
            _stop_on_signals(bots)
            try:
                await bots
            except asyncio.CancelledError:
                pass  # SIGTERM/SIGINT: the bots closed; open_runtime drains memory updates on exit
            except PlatformRejected as exc:  # a refused token: one line (cli.py prints it), no traceback
                bots.cancel()
                raise StartupError(str(exc)) from None
        return 0

    from bot.event_loop import run

    return run(main())


@contextlib.asynccontextmanager
async def _ops_port(settings, runtime, metrics, platforms):
    """FUZI_METRICS_PORT: /healthz, /readyz and /metrics beside the bots, on FUZI_WEB_HOST."""
    if metrics is None:
        yield
        return
    from bot.web import build_ops_app, uvicorn_server

    server = uvicorn_server(build_ops_app(runtime, metrics, platforms), settings.web.host, settings.metrics_port)
    task = asyncio.create_task(server.serve())
    try:
        yield
    finally:
        server.should_exit = True
        await asyncio.wait({task}, timeout=10)


def _stop_on_signals(task: asyncio.Future) -> None:
    """SIGTERM (what a process manager sends) and SIGINT stop the bots cleanly; if that hangs, the
    process ends SHUTDOWN_GRACE_S after the signal all the same (bot/shutdown.py)."""
    from bot.shutdown import arm_watchdog

    loop = asyncio.get_running_loop()

    def stop() -> None:
        task.cancel()
        arm_watchdog()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop)


def reading_link(settings: Settings):
    """The reading room Telegram opens (`/read`, the menu button), when FUZI_WEB_PUBLIC_URL is set."""
    from adapters.telegram.reading import ReadingRoomLink

    return ReadingRoomLink(settings.web.public_url) if settings.web.public_url else None


def _runner(name: str):
    if name == "telegram":
        from adapters.telegram.app import run_telegram

        return run_telegram
    from adapters.discord.client import run_discord

    return run_discord
