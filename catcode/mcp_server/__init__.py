"""catcode's memory as an MCP server (``catcode mcp serve``), apart from the MCP client in ``extensions/mcp/``.

- ``serve.py``: the server — memory search, list, show and remember as MCP tools over stdio.
The typer command is ``cli/mcp_cli.py``.
"""
