"""``/rewind`` as a command: what it says with nothing to rewind, for a message that does not exist, and a code
rewind given on one line; the undo puts the files back."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace

from rich.console import Console

from catcode.checkpoints.command import register_rewind
from catcode.commands.registry import CommandContext, CommandRegistry
from catcode.providers.scripted import ScriptedProvider, text_response, tool_response
from tests.checkpoints.test_session import _agent


def _run(registry: CommandRegistry, line: str, answers: list[str] | None = None) -> str:
    out = io.StringIO()
    replies = iter(answers or [])
    ctx = CommandContext(SimpleNamespace(), Console(file=out, width=120), lambda q: next(replies) == "y", {},
                         lambda q: next(replies, ""))  # fmt: skip
    registry.dispatch(line, ctx)
    return out.getvalue()


def test_rewind_says_what_it_does(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        tool_response("write_file", {"path": "a.txt", "content": "two\n"}, id="t1"), text_response("done")
    )
    agent, checkpointer, _ = _agent(tmp_path, provider)
    registry = CommandRegistry()
    register_rewind(registry, checkpointer)
    assert "Nothing to rewind yet" in _run(registry, "/rewind")
    agent.run_turn("rewrite a")
    root = tmp_path / "proj"
    assert "No message 7 in this session" in _run(registry, "/rewind 7")
    listed = _run(registry, "/rewind", [""])
    assert "1. rewrite a  (code: checkpoint" in listed and "Nothing rewound." in listed
    done = _run(registry, "/rewind 1 code")
    assert "rewrite a.txt" in done and "Restored 1 file: a.txt" in done
    assert (root / "a.txt").read_text() == "one\n"
    assert len(agent.messages) == 4  # code only: the conversation stays
    undone = _run(registry, "/rewind u")
    assert "Restored 1 file: a.txt" in undone and (root / "a.txt").read_text() == "two\n"
