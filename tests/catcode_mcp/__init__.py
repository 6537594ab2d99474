"""Tests of the MCP client (against real SDK servers in ``servers/``) and of ``catcode mcp serve``."""
