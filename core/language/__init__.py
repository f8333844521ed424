"""Language and script: which language a text is in and is answered in, Han-character detection and
normalisation (`text.py`), Simplified ⇄ Traditional (`script.py`) and the web history shown in its
reader's script (`scripted_history.py`).

The two vocabularies live here, once:

- `Language`: what Fuzi speaks and detects ("zh", "en") — the reply's language (`text.reply_language`),
  the language of the texts it says instead of an answer (core/texts), the guard's per-language
  thresholds (`text.threshold_language`).
- `Script`: how Chinese is written ("simplified", "traditional") — a chat's setting
  (core/storage/chat_settings.py) and the script a reply is shown in (`script.ScriptConverter`).

They stay two types because they answer different questions: a Traditional question is still "zh",
and an English reply has no script.
"""

from typing import Literal

Language = Literal["zh", "en"]
"""A language Fuzi answers in and detects: Chinese or English."""

Script = Literal["simplified", "traditional"]
"""How Chinese text is written."""
