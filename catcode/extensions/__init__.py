"""Extensions: what a session may use beyond the built-in tools. Nothing here is imported eagerly.

- ``inventory.py``: the MCP servers, user hooks, subagent definitions and custom commands of the user's and the
  project's files, with what of the project's needs consent (``InventoryPart`` gathers them for a session).
- ``custom_commands/``: Claude Code's custom slash commands (``.claude/commands/``): finding, expanding, consent.
- ``user_hooks/``: the person's shell commands run at points of a session, and running one bounded.
- ``skills/``: Agent Skills — discovery and index, what a valid skill is, consent for a project's, /skills.
- ``mcp/``: catcode as a client of MCP servers (``/mcp`` in ``mcp/command.py``); ``subagents/``: the ``task`` tool
  and agent definitions (``/agents`` in ``subagents/command.py``).
"""
