"""Tool calls as a hook written for Claude Code reads them: its tool names (``Bash``, ``Edit``, ``Write``...) and
input shapes (``file_path``, absolute), and the input a hook hands back (``updatedInput``) in catcode's shapes again.

``tool_name``: Claude Code's name when the tool has one (``tools.facts``), else catcode's (``memory_write``,
``mcp__github__search``). ``tool_input``: the call's input with ``path`` as ``file_path`` (absolute) for the file
tools, the bash timeout in milliseconds, grep's ``ignore_case`` as ``-i`` — catcode's other keys kept as they are.
``tool_response``: catcode's ``text`` and ``is_error``, with Claude Code's fields next to them (``stdout`` for
Bash, ``filePath`` and ``success`` for file tools). A key already in Claude Code's shape passes through unchanged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from catcode.tools.facts import claude_name

# Any: tool inputs and results are JSON objects, shaped here for a hook's stdin.

FILE_TOOLS = frozenset({"read_file", "write_file", "edit_file"})
EXIT_LINE = "exit code: "


def hook_tool_name(name: str) -> str:
    """The name a hook sees (``bash`` → ``Bash``)."""
    return claude_name(name)


def hook_tool_input(name: str, tool_input: dict[str, Any], project_root: Path) -> dict[str, Any]:
    """``tool_input`` in Claude Code's shape for the tool called ``name``."""
    shaped = dict(tool_input)
    if name in FILE_TOOLS and isinstance(shaped.get("path"), str):
        shaped["file_path"] = str(_absolute(shaped.pop("path"), project_root))
    if name == "bash" and isinstance(shaped.get("timeout"), int | float):
        shaped["timeout"] = int(shaped["timeout"] * 1000)
    if name == "grep" and "ignore_case" in shaped:
        shaped["-i"] = shaped.pop("ignore_case")
    return shaped


def catcode_tool_input(name: str, shaped: dict[str, Any]) -> dict[str, Any]:
    """A hook's ``updatedInput`` for the tool called ``name``, back in catcode's shape."""
    tool_input = dict(shaped)
    if name in FILE_TOOLS and "file_path" in tool_input and "path" not in tool_input:
        tool_input["path"] = tool_input.pop("file_path")
    if name == "bash" and isinstance(tool_input.get("timeout"), int | float):
        tool_input["timeout"] = max(1, round(tool_input["timeout"] / 1000))
    if name == "grep" and "-i" in tool_input:
        tool_input["ignore_case"] = tool_input.pop("-i")
    return tool_input


def hook_tool_response(name: str, tool_input: dict[str, Any], text: str, is_error: bool, root: Path) -> dict[str, Any]:
    """What a PostToolUse hook reads of a result."""
    response: dict[str, Any] = {"text": text, "is_error": is_error}
    if name == "bash":
        body, _, last = text.rpartition("\n")
        output = body if last.startswith(EXIT_LINE) else text
        response.update(stdout=output, stderr="", interrupted=False, isImage=False)
    elif name in FILE_TOOLS and isinstance(tool_input.get("path"), str):
        response.update(filePath=str(_absolute(tool_input["path"], root)), success=not is_error)
        if name == "write_file":
            response["content"] = tool_input.get("content", "")
    return response


def _absolute(path: str, root: Path) -> Path:
    given = Path(path).expanduser()
    return given if given.is_absolute() else root / given
