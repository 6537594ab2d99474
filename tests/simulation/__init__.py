"""A long-horizon simulation of catcode's memory: months of sessions over three projects and two users, with
broken replies from the model, Ctrl+C at exit, concurrent sessions, ``kill -9`` of sessions run in processes of
their own, hand edits and clears in between — checking after every session every promise of issue 14.

- ``model.py``: ``SimModel``, the scripted model behind ``ScriptedProvider``: extraction and consolidation replies
  drawn from good, malformed, empty, truncated and API errors; it records which messages each decisive reply
  covered and which facts it had saved.
- ``session.py``: one session (in this process, or in a process of its own that kills itself at a chosen moment).
- ``checks.py``: the invariants.
- ``world.py``: ``simulate(config)``: the projects, the users, the random sessions and what happens between them.

Deterministic: every choice comes from one seeded ``random.Random``; nothing sleeps. ``tests/memory/test_simulation``
runs a short version in CI; ``scripts/bench.py simulation`` runs the full one and prints how long it took."""
