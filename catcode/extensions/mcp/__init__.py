"""MCP: catcode as a client of MCP servers (the server is ``catcode/mcp_server/``).

Nothing here imports the ``mcp`` SDK at import time (it costs ~0.4 s): the client loads it in the background
once the prompt is drawn (at launch in print mode), and only when a server is configured.

- ``settings.py``: ``McpServerSettings``, one server as settings and ``.mcp.json`` declare it; ``McpSettings``
  (``mcp.startup_timeout``).
- ``sources.py``: the servers of a session — Claude Code's ``~/.claude.json``, the user's settings, the project's
  settings and ``.mcp.json`` (project servers need one-time consent) — as ``ServerSpec``; ``catalog.py``: the servers
  by scope, and adding or removing one (``catcode mcp add|add-json|list|get|remove``).
- ``manager.py``: ``McpManager``, the connections on a background event loop: start, timeouts, states, calls;
  ``transports.py``: stdio (stderr to a log file), streamable HTTP and SSE (with headers).
- ``tools.py``: an MCP tool as a catcode ``Tool`` (``mcp__<server>__<tool>``, permission from ``readOnlyHint``).
- ``part.py``: the client as a part of a session; ``command.py``: ``/mcp``.
- ``hook.py``: ``McpToolsHook``, which makes a request wait for servers still starting (up to
  ``mcp.startup_timeout``; Esc skips) and puts the tools of ready servers on the registry before each request.
"""
