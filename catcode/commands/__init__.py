"""Slash commands: the registry every feature registers into, and the core commands.

- ``registry.py``: ``Command``, ``CommandRegistry`` (prefix matching, dispatch), ``CommandContext``.
- ``builtins.py``: /help, /exit, /clear, /cost, /model, /permissions.
- ``misc.py``: /compact and /todos (``todo_view.py``: the checklist both /todos and the REPL draw), and
  ``register_session_commands`` (those two, /init, /resume), which every session carries.
- ``init.py``: /init (the model drafts AGENTS.md; written only after a yes).
- ``resume.py``: /resume and the start-up side of ``--continue`` / ``--resume`` (the session picker).

A feature's commands live beside it: /memory (recall's subcommands too) and /dream in
``memory/commands.py``, /mcp in ``extensions/mcp/command.py``, /agents in
``extensions/subagents/command.py``, /skills in ``extensions/skill_command.py``, /rewind in
``checkpoints/command.py``; each feature's part (``session.parts``) adds them to the session.
"""
