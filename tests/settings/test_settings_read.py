"""Every setting does what it says: each key of the settings models is read somewhere in the package (a key no
code reads is a promise nothing keeps), and ``bash_timeout`` drives the bash tool's default timeout."""

from __future__ import annotations

import ast
import types
import typing
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel

import catcode
from catcode.app.build import build_session
from catcode.providers.scripted import ScriptedProvider, text_response, tool_response
from catcode.safety.permissions import NoTerminalApprover
from catcode.settings.config import Settings, resolve_paths
from catcode.tools.base import ToolContext, ToolRegistry
from catcode.tools.shell import bash

PACKAGE = Path(catcode.__file__).parent


def _models(annotation: object) -> Iterator[type[BaseModel]]:
    """The settings models inside a field's type (``X``, ``X | None``, ``dict[str, X]``, ``list[X]``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    for arg in typing.get_args(annotation):
        yield from _models(arg)
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated or isinstance(annotation, types.UnionType):
        return


def settings_keys(model: type[BaseModel] = Settings, prefix: str = "") -> Iterator[tuple[str, str]]:
    """(dotted key, field name) for every field of the settings models, nested ones included."""
    for name, field in model.model_fields.items():
        yield f"{prefix}{name}", name
        for sub in _models(field.annotation):
            yield from settings_keys(sub, f"{prefix}{name}.")


def names_read() -> set[str]:
    """Attribute names read (``x.name``) and string constants (``getattr(x, "name")``, env maps) in the package."""
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                found.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
    return found


def test_every_settings_key_is_read_by_some_code() -> None:
    read = names_read()
    unread = sorted(key for key, name in settings_keys() if name not in read)
    assert unread == [], f"settings no code reads: {unread}"


def test_the_walk_sees_nested_and_mapped_models() -> None:
    keys = {key for key, _ in settings_keys()}
    assert {"bash_timeout", "memory.extract_min_messages", "mcp_servers.startup_timeout", "compact.snip_keep"} <= keys


def test_bash_uses_the_context_timeout_when_the_call_gives_none(tmp_path: Path) -> None:
    ctx = ToolContext(project_root=tmp_path, bash_timeout=1)
    result = ToolRegistry([bash]).execute(bash, bash.parse({"command": "sleep 30"}), ctx)
    assert result.is_error and result.text.endswith("Command timed out after 1s (process group killed)")
    given = ToolRegistry([bash]).execute(bash, bash.parse({"command": "echo ok", "timeout": 5}), ctx)
    assert given.text == "ok\nexit code: 0"


def test_bash_timeout_setting_drives_the_sessions_bash_tool(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    settings = Settings.model_validate(
        {"bash_timeout": 1, "permissions": {"mode": "bypass"}, "memory": {"enabled": False}}
    )
    provider = ScriptedProvider(tool_response("bash", {"command": "sleep 30"}), text_response("done"))
    paths = resolve_paths(settings, tmp_path / "home", project)
    approver = NoTerminalApprover()
    session = build_session(settings, paths, approver=approver, provider=provider, env={}, interactive=False)
    session.agent.run_turn("run it")
    result = provider.requests[1].messages[-1].content[0]
    assert result.is_error and "Command timed out after 1s" in result.content
