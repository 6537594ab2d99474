"""A real MCP server written with the SDK, for the tests: ``python demo_server.py`` serves on stdio,
``python demo_server.py --http`` serves streamable HTTP on a free port of 127.0.0.1 and prints ``PORT <n>`` first.

Tools: ``echo`` and ``pid`` (readOnlyHint), ``touch`` (creates a file in the working directory; no hint, so it asks),
``hang`` (never answers), ``crash`` (the process exits mid-call), ``fail`` (a tool error), ``tiny_image`` (a caption
and a 1x1 PNG, like the reference server's ``get-tiny-image``).
With ``DEMO_REQUIRED_HEADER=name:value`` the HTTP server refuses requests without that header (401)."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.types import ImageContent, TextContent, ToolAnnotations

server = MCPServer("demo", log_level="WARNING")


@server.tool(annotations=ToolAnnotations(read_only_hint=True), structured_output=False)
def echo(text: str) -> str:
    """Say the text back."""
    return f"echo: {text}"


@server.tool(structured_output=False)
def touch(name: str) -> str:
    """Create an empty file in the server's working directory."""
    if Path(name).name != name:
        raise ValueError("a plain file name, please")
    Path(name).touch()
    return f"created {name}"


@server.tool(annotations=ToolAnnotations(read_only_hint=True), structured_output=False)
def pid() -> str:
    """The server's process id."""
    return str(os.getpid())


@server.tool(annotations=ToolAnnotations(read_only_hint=True), structured_output=False)
async def hang() -> str:
    """Never answer."""
    await asyncio.Event().wait()
    return "unreachable"


@server.tool(structured_output=False)
def crash() -> str:
    """Exit the server process in the middle of the call."""
    os._exit(3)


@server.tool(annotations=ToolAnnotations(read_only_hint=True), structured_output=False)
def fail() -> str:
    """Fail with a tool error."""
    raise ValueError("the demo tool failed on purpose")


TINY_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="


@server.tool(annotations=ToolAnnotations(read_only_hint=True), structured_output=False)
def tiny_image() -> list[TextContent | ImageContent]:
    """A caption and a tiny PNG."""
    image = ImageContent(type="image", data=TINY_PNG, mimeType="image/png")
    return [TextContent(type="text", text="a tiny image:"), image]


def serve_http() -> None:
    import anyio
    import uvicorn

    app = server.streamable_http_app()
    required = os.environ.get("DEMO_REQUIRED_HEADER")
    if required:
        name, _, value = required.partition(":")
        inner = app

        async def app(scope, receive, send):  # type: ignore[no-redef]
            headers = dict(scope.get("headers") or [])
            if scope["type"] == "http" and headers.get(name.lower().encode()) != value.encode():
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"missing header"})
                return
            await inner(scope, receive, send)

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    anyio.run(lambda: uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    if "--http" in sys.argv:
        serve_http()
    else:
        server.run()
