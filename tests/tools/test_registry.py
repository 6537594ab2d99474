"""The built-in tool set and the registry's promise that a tool failure becomes an is_error result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel

from catcode.errors import ToolError
from catcode.tools.base import Permission, ToolContext, ToolInputError, ToolRegistry, ToolResult, tool
from catcode.tools.builtin import builtin_tools


class Nothing(BaseModel):
    """No arguments."""


class Named(BaseModel):
    """One required argument."""

    name: str
    count: int = 1


@tool()
def boom(args: Nothing, ctx: ToolContext) -> ToolResult:
    """Always crashes."""
    raise RuntimeError("kaput")


@tool()
def refuse(args: Nothing, ctx: ToolContext) -> ToolResult:
    """Always refuses."""
    raise ToolError("Refused: not today")


@tool()
def interrupted(args: Nothing, ctx: ToolContext) -> ToolResult:
    """The user pressed Ctrl+C."""
    raise KeyboardInterrupt


@tool()
def sloppy(args: Named, ctx: ToolContext) -> ToolResult:
    """Returns a plain string instead of a ToolResult."""
    return f"hi {args.name}"  # type: ignore[return-value]


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(project_root=tmp_path)


def test_builtin_tools_in_a_stable_order() -> None:
    assert [t.name for t in builtin_tools()] == ["Read", "Glob", "Grep", "Write", "Edit", "Bash"]
    assert ToolRegistry(builtin_tools()).names() == [t.name for t in builtin_tools()]


def test_builtin_permissions_key_arguments_and_previews() -> None:
    table = {t.name: (t.permission, t.key_arg, t.preview is not None) for t in builtin_tools()}
    assert table == {
        "Read": (Permission.READ, "file_path", False),
        "Glob": (Permission.READ, "pattern", False),
        "Grep": (Permission.READ, "pattern", False),
        "Write": (Permission.WRITE, "file_path", True),
        "Edit": (Permission.WRITE, "file_path", True),
        "Bash": (Permission.EXECUTE, "command", True),  # the fence a call leaves (outside_sandbox)
    }


def test_builtin_specs_are_complete_and_byte_stable() -> None:
    specs = ToolRegistry(builtin_tools()).specs()
    for spec in specs:
        assert spec["description"].strip()
        assert spec["input_schema"]["type"] == "object"
        assert "title" not in spec["input_schema"]
        for prop in spec["input_schema"]["properties"].values():
            assert prop.get("description"), f"{spec['name']} has an undocumented argument"
    assert json.dumps(specs) == json.dumps(ToolRegistry(builtin_tools()).specs())


def test_an_unexpected_exception_becomes_an_error_result(ctx: ToolContext) -> None:
    result = ToolRegistry([boom]).execute(boom, Nothing(), ctx)
    assert result == ToolResult("Tool boom failed: RuntimeError: kaput", is_error=True)


def test_a_tool_error_is_shown_as_its_message(ctx: ToolContext) -> None:
    assert ToolRegistry([refuse]).execute(refuse, Nothing(), ctx) == ToolResult("Refused: not today", is_error=True)


def test_keyboard_interrupt_propagates(ctx: ToolContext) -> None:
    with pytest.raises(KeyboardInterrupt):
        ToolRegistry([interrupted]).execute(interrupted, Nothing(), ctx)


def test_a_plain_return_value_is_wrapped(ctx: ToolContext) -> None:
    assert ToolRegistry([sloppy]).execute(sloppy, Named(name="cat"), ctx) == ToolResult("hi cat")


def test_invalid_input_is_a_readable_error() -> None:
    with pytest.raises(ToolInputError) as err:
        sloppy.parse({"count": "many"})
    message = str(err.value)
    assert message.startswith("Invalid input for sloppy: ")
    assert "name: Field required" in message and "count:" in message


def test_a_later_registration_replaces_the_earlier() -> None:
    registry = ToolRegistry([boom, refuse])
    replacement = tool("boom")(refuse.function)
    registry.register(replacement)
    assert registry.names() == ["boom", "refuse"]
    assert registry.get("boom") is replacement
    assert registry.get("missing") is None
