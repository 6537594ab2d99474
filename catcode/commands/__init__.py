"""Slash commands: the registry every feature registers into, and the core commands.

- ``registry.py``: ``Command``, ``CommandRegistry`` (prefix matching, dispatch), ``CommandContext``.
- ``builtins.py``: /help, /exit, /clear, /cost, /model, /permissions.
- ``misc.py``: /compact and /todos (``todo_view.py``: the checklist both /todos and the REPL draw), and
  ``register_session_commands`` (those two and the ones below), which every session carries.
- ``context_view.py``: /context (what fills the context window, per part); ``session_info.py``: /status, /config,
  /statusline; ``workspace.py``: /add-dir, /export, /review.
- ``init.py``: /init (the model drafts AGENTS.md; written only after a yes).
- ``resume.py``: /resume and the start-up side of ``--continue`` / ``--resume`` (the session picker).

A feature's commands live beside it: /memory (recall's subcommands too) and /dream in
``memory/commands.py``, /mcp in ``extensions/mcp/command.py``, /agents in
``extensions/subagents/command.py``, /skills in ``extensions/skill_command.py``, /rewind in
``checkpoints/command.py``, /hooks in ``extensions/user_hooks/command.py``, custom commands (Claude Code's
``.claude/commands/``) in ``extensions/custom_commands/``; each feature's part (``session.parts``) adds them.
"""
