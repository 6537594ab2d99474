"""A process that is configured as an MCP server but does not speak MCP: ``crash`` exits at once with an error on
stderr, ``leak`` does the same after printing its token, ``hang`` reads its input and never answers, ``garbage``
answers every line with text that is not JSON."""

from __future__ import annotations

import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "hang"
if mode == "leak":
    sys.stderr.write("broken_server: GITHUB_TOKEN=ghp_Zq8wE3rT5yU9iO0pA1sD2fG3hJ4kL5zX6cV7 rejected\n")
if mode in ("crash", "leak"):
    sys.stderr.write("broken_server: cannot start, exiting\n")
    sys.exit(3)
for _line in sys.stdin:
    if mode == "garbage":
        sys.stdout.write("Welcome to broken_server! <html>not json</html>\n")
        sys.stdout.flush()
