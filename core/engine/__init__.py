"""The reply pipeline: the engine every adapter drives (the `Engine` port of core/ports.py).

- `service.py`: `ChatService.handle`, the entry point: who and where, commands, admission, routing.
- `checks.py`: the input checks for chat text and command arguments alike.
- `reply.py`: the reply task: context, the guarded fallback ladder, storing, background work.
- `records.py`: the adapter-facing record of replies (delivered, where shown, cut short).
- `notices.py`: the notices the engine builds itself (refusals, the error apology).
- `wrapper.py`: `EngineWrapper`, the one base for policies in front of an engine.

Its parts (the ladder, admission, the command router) are built in bot/wiring.py and passed in.
"""
