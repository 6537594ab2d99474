"""Slash commands.

- ``registry.py``: ``Command``, ``CommandRegistry`` (prefix matching, dispatch), ``CommandContext``.
- ``builtins.py``: /help, /exit, /clear, /cost, /model, /permissions.
- ``memory.py``: /memory and its subcommands, /dream.
- ``misc.py``: /compact and /skills.
- ``init.py``: /init (the model drafts AGENTS.md; written only after a yes).
- ``resume.py``: /resume and the start-up side of ``--continue`` / ``--resume`` (the session picker).
"""
