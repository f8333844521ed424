"""Composition root: settings, wiring, CLI. Nothing else lives here."""
