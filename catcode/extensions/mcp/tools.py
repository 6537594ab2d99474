"""An MCP server's tool as a catcode ``Tool``, and an MCP result or error as text for the model and the person.

Name: ``mcp__<server>__<tool>`` (characters the API does not allow become ``_``; a name over 64 characters is not
offered). Input: the tool's own JSON schema, passed through; the server validates the arguments. Permission:
``readOnlyHint: true`` makes it a read tool (never asks, but in read-only mode it asks unless a rule names it: the
hint is the server's word); anything else asks like ``bash`` does (and is refused in read-only mode). Allow one
without asking with a rule naming it, e.g. ``allow: [mcp__github__create_issue]``."""

from __future__ import annotations

import json
import re
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from catcode.boundary import defuse
from catcode.tools.base import Permission, Tool, ToolContext, ToolResult

# Any: MCP tool listings and results are the mcp SDK's objects; tool inputs are JSON.

MAX_NAME = 64
MAX_DESCRIPTION = 2_000  # sent with every request: a server must not fill the prompt with one tool's manual
MAX_RESULT = 50_000
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_-]")


class McpArguments(BaseModel):
    """Whatever the model sends; the tool's own schema (``Tool.schema``) is what it is shown."""

    model_config = ConfigDict(extra="allow")


def tool_name(server: str, tool: str) -> str | None:
    """``mcp__<server>__<tool>``, or None when that is longer than the API allows."""
    name = f"mcp__{_NOT_ALLOWED.sub('_', server)}__{_NOT_ALLOWED.sub('_', tool)}"
    return name if len(name) <= MAX_NAME else None


class ToolCaller(Protocol):
    """What an MCP tool needs of the manager: calling a server's tool (``McpManager.call``)."""

    def call(self, server_name: str, tool_name: str, arguments: dict[str, Any], cancel: Any) -> ToolResult:
        """Run ``tool_name`` of ``server_name`` with ``arguments``; never raises."""
        ...


def mcp_tool(manager: ToolCaller, server: str, listed: Any) -> Tool | None:
    """The catcode tool for ``listed`` (an ``mcp.types.Tool``) of ``server``; None when its name cannot be used."""
    name = tool_name(server, listed.name)
    if name is None:
        return None
    annotations = listed.annotations
    read_only = bool(annotations is not None and annotations.read_only_hint)
    remote = listed.name

    def run(args: McpArguments, ctx: ToolContext) -> ToolResult:
        return manager.call(server, remote, args.model_dump(), ctx.cancel)

    description = (listed.description or f"The {remote} tool of the {server} MCP server.").strip()
    if len(description) > MAX_DESCRIPTION:
        description = description[: MAX_DESCRIPTION - 1] + "…"
    schema = dict(listed.input_schema or {})
    schema.setdefault("type", "object")
    schema.pop("$schema", None)
    return Tool(
        name=name,
        description=description,
        input_model=McpArguments,
        function=run,
        permission=Permission.READ if read_only else Permission.EXECUTE,
        schema=schema,
    )


def result_of(result: Any, name: str = "tool") -> ToolResult:
    """A ``CallToolResult`` for the model: text blocks as they are (capped at ``MAX_RESULT``), images as images
    (PNG, JPEG, GIF, WebP within the API's limit; ``name`` names them in history), other content named."""
    from catcode.conversation.images import ImageTooBig, image_of

    parts: list[str] = []
    images: list[Any] = []
    for block in result.content or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "image" and _image(block, f"{name} image {len(images) + 1}", images, parts, image_of, ImageTooBig):
            continue
        elif kind in ("image", "audio"):
            parts.append(f"[{kind} {block.mime_type}, about {len(block.data) * 3 // 4} bytes, not shown]")
        elif kind == "resource_link":
            parts.append(f"[resource {block.uri}]")
        elif kind == "resource":
            resource = block.resource
            parts.append(getattr(resource, "text", None) or f"[resource {resource.uri}]")
        else:
            parts.append(f"[{kind or 'unknown'} content]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False, default=str))
    text = defuse("\n".join(parts))  # the server's text: the tool_result block bounds it, and no tag of ours is in it
    if len(text) > MAX_RESULT:
        text = text[:MAX_RESULT] + f"\n[… {len(text) - MAX_RESULT} more characters not shown]"
    if not text and images:
        text = f"{len(images)} image{'s' if len(images) != 1 else ''} attached below."
    return ToolResult(text or "(no output)", is_error=bool(result.is_error), images=images)


def _image(block: Any, name: str, images: list[Any], parts: list[str], make: Any, too_big: type[Exception]) -> bool:
    """Take an image content block as an image; False (it is then named in the text) for a kind the API does not
    take. One over the size limit is one line in the text instead."""
    try:
        image = make(block.mime_type, block.data, name)
    except too_big as exc:
        parts.append(str(exc))
        return True
    if image is None:
        return False
    images.append(image)
    return True


def describe_error(exc: BaseException) -> str:
    """One line for any failure, the first real cause of an exception group first."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    text = " ".join(str(exc).split())
    if not text or text in ("()",):
        text = type(exc).__name__
    elif type(exc).__name__ not in text:
        text = f"{type(exc).__name__}: {text}"
    return text[:300]
