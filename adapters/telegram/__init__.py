"""Telegram adapter (python-telegram-bot v22). Entry points: ``app.build_application``, ``app.run_telegram``."""
