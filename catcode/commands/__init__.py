"""Slash commands.

- ``registry.py``: ``Command``, ``CommandRegistry`` (prefix matching, dispatch), ``CommandContext``.
- ``builtins.py``: /help, /exit, /clear, /cost, /model, /permissions.
- ``memory.py``: /memory and its subcommands, /dream.
- ``misc.py``: /compact and /skills.
"""
