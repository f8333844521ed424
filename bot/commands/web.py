"""`fuzi serve` (the HTTP API and the web page), `fuzi token create` (a bearer JWT for it; `--admin`:
the operator role) and `fuzi token revoke` (every token of a person issued before now stops working,
in every process)."""

from __future__ import annotations

import argparse
import asyncio
import sys

TOKEN_TTL = "7d"  # default lifetime of `fuzi token create`; --ttl changes it (was FUZI_WEB_TOKEN_TTL)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="serve the chat API, the web page, health and metrics over HTTP")
    p.add_argument("--host", default=None, help="address to bind (default FUZI_WEB_HOST, 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default FUZI_WEB_PORT, 8080)")
    p.set_defaults(func=_serve)
    t = sub.add_parser("token", help="web API tokens")
    tsub = t.add_subparsers(dest="token_command", required=True)
    c = tsub.add_parser("create", help="print a bearer token (JWT, HS256, signed with FUZI_WEB_JWT_SECRET)")
    c.add_argument("--user", required=True, help="the web person the token speaks for")
    c.add_argument(
        "--ttl",
        default=TOKEN_TTL,
        help=f"lifetime: 30m, 12h, 7d … (default {TOKEN_TTL}; at most FUZI_WEB_TOKEN_MAX_TTL)",
    )
    c.add_argument(
        "--admin", action="store_true", help="the operator role: the console /admin and /v1/admin/… (revocable)"
    )
    c.set_defaults(func=_token_create)
    r = tsub.add_parser("revoke", help="stop every token of a person issued before now (a row in the database)")
    r.add_argument("--user", required=True, help="the web person whose tokens stop working")
    r.set_defaults(func=_token_revoke)


def _token_create(args: argparse.Namespace) -> int:
    from adapters.web.auth import JwtAuth, parse_ttl, valid_user
    from bot.settings import SettingsError, load_settings
    from bot.web import max_ttl_s

    settings = load_settings()
    secret = settings.web.jwt_secret
    if secret is None or not secret.get_secret_value():
        raise SettingsError("missing setting FUZI_WEB_JWT_SECRET: needed to sign tokens")
    if not valid_user(args.user):
        raise SettingsError("--user: 1-64 of letters, digits and _ . @ -")
    try:
        ttl = parse_ttl(args.ttl)
    except ValueError as exc:
        raise SettingsError(f"--ttl: {exc}") from None
    auth = JwtAuth(secret.get_secret_value(), max_ttl_s=max_ttl_s(settings))
    try:
        print(auth.issue(args.user, ttl, operator=args.admin))
    except ValueError as exc:
        print(f"--ttl {args.ttl}: longer than allowed, {exc}", file=sys.stderr)
        return 1
    return 0


def _token_revoke(args: argparse.Namespace) -> int:
    from adapters.web.auth import valid_user
    from bot.database import database_engine
    from bot.logging import configure_logging
    from bot.settings import SettingsError, load_settings
    from core.storage import Storage

    settings = load_settings()
    configure_logging(settings.env, "WARNING")
    if not valid_user(args.user):
        raise SettingsError("--user: 1-64 of letters, digits and _ . @ -")
    settings.home.mkdir(parents=True, exist_ok=True)
    engine = database_engine(settings)
    try:
        moment = asyncio.run(Storage(engine).revocations.revoke(args.user))
    finally:
        engine.dispose()
    print(f"tokens of {args.user} issued before {moment.isoformat(timespec='seconds')} no longer work")
    return 0


def _serve(args: argparse.Namespace) -> int:
    from adapters.common.metrics import FuziMetrics
    from bot.first_start import prepare_data
    from bot.logging import setup_logging
    from bot.settings import load_settings
    from bot.web import (
        authenticator,
        build_web_app,
        serve_until_signalled,
        uvicorn_server,
    )
    from bot.wiring import open_runtime

    settings = load_settings()
    setup_logging(settings)
    host, port = args.host or settings.web.host, args.port if args.port is not None else settings.web.port
    authenticator(settings, host)  # refuse a public address without a secret before loading anything

    async def main() -> int:
        first_build = await prepare_data(settings)
        metrics = FuziMetrics()
        async with open_runtime(settings, metrics, first_build=first_build) as runtime:
            server = uvicorn_server(build_web_app(settings, runtime, metrics, host), host, port)
            print(f"Fuzi is listening on http://{host}:{port}/ (Ctrl-C stops)", flush=True)
            await serve_until_signalled(server)  # SIGTERM/SIGINT; open_runtime drains memory updates on exit
        return 0

    from bot.event_loop import run

    return run(main())
