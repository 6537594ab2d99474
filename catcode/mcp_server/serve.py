"""``catcode mcp serve``: catcode's memory as an MCP server on stdio, for Claude Code, Cursor or any MCP client.

Tools (for the project of the working directory, both scopes, like a catcode session there):
- ``memory_search(query, limit)``, ``memory_read(name?)``, ``memory_list()``: read-only (``readOnlyHint``).
- ``memory_write(name, type, description, content)`` and ``memory_forget(name)``: only with ``--allow-writes``.
  Both go through the store's single write path — validation, secret redaction, the cross-process lock, atomic
  files, the index, one git commit (``mcp: ...`` in ``catcode memory log``) — so a forget is undone with
  ``catcode memory revert`` like any change.
Errors come back as tool errors with the same texts as catcode's own memory tools."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from catcode import __version__
from catcode.errors import CatcodeError

if TYPE_CHECKING:
    from catcode.memory.service import MemoryDoor

INSTRUCTIONS = """catcode's persistent memory: the user's preferences and corrections (user scope) and this \
project's decisions and references (project scope). Search or list it before asking the user something they may \
have said before."""
WHY = "mcp"


def build_server(door: MemoryDoor, *, allow_writes: bool) -> Any:
    """The ``MCPServer`` over memory's front door (offline: no model), its search open for the server's life."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    from catcode.memory.service import NoSuchMemory
    from catcode.memory.words import format_entry, format_list, not_found, search_text

    server = MCPServer("catcode-memory", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING")
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(annotations=read_only, structured_output=False)
    def memory_search(
        query: Annotated[str, Field(description="Words, code identifiers or a phrase, in any language.")],
        limit: Annotated[int, Field(ge=1, le=50, description="How many results at most.")] = 10,
    ) -> str:
        """Full-text search over every memory, session summary and compacted history of this project, best first."""
        found = door.search(query, limit)
        return search_text(found.query, found.hits)

    @server.tool(annotations=read_only, structured_output=False)
    def memory_read(
        name: Annotated[str, Field(description="The memory to read; empty lists names and descriptions.")] = "",
        page: Annotated[int, Field(ge=1, description="Which page of the list when no name is given.")] = 1,
    ) -> str:
        """Read one memory in full by name, or list names and descriptions (50 per page) when no name is given."""
        if not name.strip():
            return door.page(page)
        try:
            shown = door.show(name)
        except NoSuchMemory as exc:
            raise ToolError(not_found(exc.name)) from None
        return format_entry(shown.entry, shown.scope)

    @server.tool(annotations=read_only, structured_output=False)
    def memory_list() -> str:
        """List every memory as name - description (type, scope), the user's first, then this project's."""
        return format_list(door.listing().items)

    if allow_writes:
        writes = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True)

        @server.tool(annotations=writes, structured_output=False)
        def memory_write(
            name: Annotated[str, Field(description="kebab-case slug, e.g. user-prefers-vim (the unique key)")],
            type: Annotated[str, Field(description="user | feedback | project | reference")],
            description: Annotated[str, Field(description="One-line summary, shown in every catcode request")],
            content: Annotated[str, Field(description="The fact to remember, in full")],
        ) -> str:
            """Save a memory (writing an existing name updates it). Types: user (preferences, habits), feedback
            (corrections), project (decisions, constraints), reference (technical facts). Never save secrets:
            they are redacted."""
            try:
                written = door.write(name, type, description, content, why=WHY)
            except CatcodeError as exc:  # the model's own texts (a bad name or type), a lock timeout...
                raise ToolError(str(exc)) from None
            redacted = f" ({written.redacted} secret(s) redacted)" if written.redacted else ""
            return f"Memory saved: {written.name}{redacted}"

        forget = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True)

        @server.tool(annotations=forget, structured_output=False)
        def memory_forget(name: Annotated[str, Field(description="The memory to forget")]) -> str:
            """Forget (delete) a memory by name; `catcode memory revert` brings it back."""
            try:
                forgotten = door.forget(name, why=WHY)
            except NoSuchMemory as exc:
                raise ToolError(not_found(exc.name)) from None
            except CatcodeError as exc:
                raise ToolError(str(exc)) from None
            return f"Memory forgotten: {forgotten.name}"

    return server


def serve(door: MemoryDoor, *, allow_writes: bool) -> None:
    """Serve on stdin/stdout until the client closes the connection."""
    with door.searching():
        build_server(door, allow_writes=allow_writes).run("stdio")
