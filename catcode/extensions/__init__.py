"""Extensions: what a session may use beyond the built-in tools. Nothing here is imported eagerly.

- ``inventory.py``: the MCP servers, user hooks and subagent definitions of the user's and the project's files,
  with what of the project's needs consent (``InventoryPart`` gathers them for a session).
- ``user_hooks.py``: shell commands from settings run at points of a session (Claude Code's model);
  ``hook_process.py``: running one hook command, every wait bounded and every output capped;
  ``user_hooks_part.py``: the hooks as a part of a session.
- ``skills.py``: Agent Skills — ``SKILL.md`` folders, their index, one loaded on demand; ``skill_model.py``: what a
  valid skill is; ``skill_text.py``: what the model and the person are shown of one; ``skill_consent.py``: which
  project skills the person allowed; ``skill_command.py``: /skills; ``skill_part.py``: skills as a part of a session.
- ``mcp/``: catcode as a client of MCP servers (``/mcp`` in ``mcp/command.py``); ``subagents/``: the ``task`` tool
  and agent definitions (``/agents`` in ``subagents/command.py``).
"""
