"""The reply pipeline: the engine every adapter drives (the `Engine` port of core/ports.py).

- `service.py`: `ChatService.handle`, the entry point: who and where, commands, admission, routing.
- `checks.py`: the input checks for chat text and command arguments alike.
- `admission.py`, `running_redis.py`: the gate (one reply in flight per person, then the limits) and
  the running-reply lease shared through Redis.
- `commands.py`: the command router and the built-in commands.
- `reply.py`: the reply task: context, the guarded fallback ladder, storing, background work.
- `ladder.py`, `output_guard.py`: the fallback ladder (L0 → L1 → L2) and the output guard around it.
- `watch.py`: heartbeats of running replies and the repair sweep of a dead process's.
- `lookup.py`: cited passages from retrieval alone (inline mode, /passage).
- `records.py`: the adapter-facing record of replies (delivered, where shown, cut short).
- `notices.py`: the notices the engine builds itself (refusals, the error apology).
- `wrapper.py`: `EngineWrapper`, the one base for policies in front of an engine.

Its parts (the ladder, admission, the command router) are built in bot/wiring.py and passed in.
"""
