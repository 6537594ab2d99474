"""Each optional part wires itself into a real session (``build_session``) through the seam of
``catcode.session.parts``: its typed field on the ``Session``, its slash commands, its exit steps, and — when the
feature is off — nothing at all, not even an import."""

from __future__ import annotations

import ast
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console

from catcode.app.build import build_session
from catcode.commands.registry import CommandContext
from catcode.commands.resume import NO_HISTORY
from catcode.providers.scripted import ScriptedProvider
from catcode.safety.permissions import NoTerminalApprover
from catcode.session.session import Session
from catcode.settings.config import Settings, resolve_paths
from catcode.ui.line_runner import build_registry
from tests.slowness import bound

FEATURE_COMMANDS = ["/memory", "/skills", "/agents", "/rewind"]
CORE_COMMANDS = ["/compact", "/todos", "/init", "/resume", "/mcp", "/help", "/exit"]


def session_with(tmp_path: Path, *, on: bool, interactive: bool = False) -> Session:
    settings = Settings(
        memory={"enabled": on, "sync": "manual"}, skills_enabled=on, subagents={"enabled": on},
        checkpoints={"enabled": on},
    )  # fmt: skip
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    paths = resolve_paths(settings, tmp_path / "home", project)
    return build_session(
        settings, paths, approver=NoTerminalApprover(), provider=ScriptedProvider(), env={}, cwd=project,
        interactive=interactive,
    )  # fmt: skip


def run(session: Session, line: str) -> str:
    out = StringIO()
    build_registry(session).dispatch(line, CommandContext(session, Console(file=out, width=200)))
    return out.getvalue()


def test_every_part_that_is_on_fills_its_field_and_brings_its_commands(tmp_path: Path) -> None:
    session = session_with(tmp_path, on=True)
    assert session.memory is not None and session.recall is not None and session.history is not None
    assert session.auto_recall is not None and session.agent.recall is session.auto_recall
    assert session.skills is not None and session.subagents is not None and session.checkpoints is not None
    assert session.extensions is not None and session.mcp is None  # no MCP server configured
    assert session.session_id == getattr(session.memory, "session_id", None)  # memory's id names the session
    listing = run(session, "/help")
    for command in FEATURE_COMMANDS + CORE_COMMANDS:
        assert f"\n{command} " in "\n" + listing, command
    assert session.tools.get("Task") is not None and session.tools.get("memory_search") is not None


def test_a_part_that_is_off_leaves_its_field_empty_and_its_commands_out(tmp_path: Path) -> None:
    session = session_with(tmp_path, on=False)
    assert (session.memory, session.recall, session.auto_recall, session.history) == (None, None, None, None)
    assert (session.skills, session.subagents, session.checkpoints, session.mcp) == (None, None, None, None)
    assert len(session.session_id) == 36  # a fresh id of its own (a UUID)
    listing = run(session, "/help")
    for command in FEATURE_COMMANDS:
        assert f"\n{command} " not in "\n" + listing, command
    for command in CORE_COMMANDS:
        assert f"\n{command} " in "\n" + listing, command
    assert run(session, "/resume").strip() == NO_HISTORY  # the typed history field says there is none


def test_subagents_are_cancelled_before_anything_else_at_exit(tmp_path: Path) -> None:
    session = session_with(tmp_path, on=True, interactive=True)
    scope = session.subagents
    assert scope is not None and len(session.exit_steps) > 1  # memory's capture and recall's summary follow
    session.exit_steps[0](lambda line: None)
    assert scope.cancelled.is_set()


@pytest.mark.parametrize("on", [False, True])
def test_the_modules_of_a_part_that_is_off_are_not_even_imported(tmp_path: Path, on: bool) -> None:
    found = tmp_path / "modules.txt"
    code = (
        "import sys; from pathlib import Path; from tests.session.test_session_parts import session_with; "
        f"session_with(Path({str(tmp_path)!r}), on={on}); "
        "names = sorted(m for m in sys.modules if m.endswith(('.part', '.skill_part', '.command'))); "
        f"Path({str(found)!r}).write_text(repr(names))"
    )
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=bound(120), check=True)
    loaded = ast.literal_eval(found.read_text())  # the module names, written off stdout (background threads log)
    parts = ["catcode.checkpoints.part", "catcode.extensions.skills.part", "catcode.extensions.subagents.part",
             "catcode.memory.part"]  # fmt: skip
    assert [name for name in parts if name in loaded] == (parts if on else [])
    assert "catcode.extensions.mcp.part" in loaded  # /mcp is there without any server, to say how to add one
    # slash commands are imported with the registry only: a session without a prompt (print mode) has none
    assert [name for name in loaded if name.endswith(".command")] == []
