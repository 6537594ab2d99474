"""MCP servers the tests run as real processes: ``demo_server.py`` (written with the SDK; stdio or streamable
HTTP) and ``broken_server.py`` (speaks no MCP at all: crashes, hangs or writes garbage)."""
