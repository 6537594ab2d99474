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
from catcode.errors import MemoryStoreError

if TYPE_CHECKING:
    from catcode.memory.runtime import MemoryRuntime
    from catcode.memory.store.store import MemoryStore

INSTRUCTIONS = """catcode's persistent memory: the user's preferences and corrections (user scope) and this \
project's decisions and references (project scope). Search or list it before asking the user something they may \
have said before."""
WHY = "mcp"


def build_server(runtime: MemoryRuntime, recall: Any, *, allow_writes: bool) -> Any:
    """The ``MCPServer`` over an offline ``MemoryRuntime`` and its ``Recall``."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    from catcode.memory.recall.views import search_text
    from catcode.memory.report import format_entry, format_list
    from catcode.memory.tools import memory_page, not_found

    store = runtime.store
    server = MCPServer("catcode-memory", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING")
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(annotations=read_only, structured_output=False)
    def memory_search(
        query: Annotated[str, Field(description="Words, code identifiers or a phrase, in any language.")],
        limit: Annotated[int, Field(ge=1, le=50, description="How many results at most.")] = 10,
    ) -> str:
        """Full-text search over every memory, session summary and compacted history of this project, best first."""
        return search_text(recall, query, limit)

    @server.tool(annotations=read_only, structured_output=False)
    def memory_read(
        name: Annotated[str, Field(description="The memory to read; empty lists names and descriptions.")] = "",
        page: Annotated[int, Field(ge=1, description="Which page of the list when no name is given.")] = 1,
    ) -> str:
        """Read one memory in full by name, or list names and descriptions (50 per page) when no name is given."""
        name = name.strip()
        if not name:
            return memory_page(store, page)
        entry = store.get(name)
        if entry is None:
            raise ToolError(not_found(name))
        return format_entry(entry, store.scope_of(name))

    @server.tool(annotations=read_only, structured_output=False)
    def memory_list() -> str:
        """List every memory as name - description (type, scope), the user's first, then this project's."""
        return format_list(store.listed())

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
            entry = _entry(store, name, type, description, content, ToolError)
            try:
                counts = store.update(entry, why=WHY)
            except MemoryStoreError as exc:
                raise ToolError(str(exc)) from None
            redacted = f" ({counts.redacted} secret(s) redacted)" if counts.redacted else ""
            return f"Memory saved: {entry.name}{redacted}"

        forget = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True)

        @server.tool(annotations=forget, structured_output=False)
        def memory_forget(name: Annotated[str, Field(description="The memory to forget")]) -> str:
            """Forget (delete) a memory by name; `catcode memory revert` brings it back."""
            from catcode.memory.store.names import validate_name
            from catcode.memory.tools import NAME_REQUIRED

            name = name.strip()
            if not name:
                raise ToolError(NAME_REQUIRED)
            try:
                deleted = store.delete(validate_name(name), why=WHY)
            except MemoryStoreError as exc:
                raise ToolError(str(exc)) from None
            if not deleted:
                raise ToolError(not_found(name))
            return f"Memory forgotten: {name}"

    return server


def _entry(store: MemoryStore, name: str, kind: str, description: str, content: str, error: type[Exception]) -> Any:
    """The entry to write, or ``error`` with the same text catcode's own ``memory_write`` gives."""
    from catcode.memory.store.models import MemoryEntry, MemoryType
    from catcode.memory.store.names import validate_name
    from catcode.memory.tools import NAME_REQUIRED, TYPE_INVALID

    name = name.strip()
    if not name:
        raise error(NAME_REQUIRED)
    try:
        memory_type = MemoryType(kind.strip().lower())
    except ValueError:
        raise error(TYPE_INVALID) from None
    try:
        validate_name(name)
    except MemoryStoreError as exc:
        raise error(str(exc)) from None
    today = store.today()
    return MemoryEntry(
        name=name, description=description, type=memory_type, content=content, created_at=today, updated_at=today
    )


def serve(runtime: MemoryRuntime, *, allow_writes: bool) -> None:
    """Serve on stdin/stdout until the client closes the connection."""
    from catcode.memory.builder import build_recall

    with build_recall(runtime) as recall:
        build_server(runtime, recall, allow_writes=allow_writes).run("stdio")
