"""Composition root: settings, wiring, CLI. Nothing else lives here."""

from bot.lean_imports import import_lean

import_lean()  # structlog without rich, tenacity without tornado (bot/lean_imports.py)
