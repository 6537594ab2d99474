"""The exit of a whole session (``build_session``): the person goes at once; the capture and the session summary,
after the exit (here run at once in this process, as the upkeep process runs them), share ONE budget,
``memory.exit_timeout``, and what they did is shown at the next start. A fake clock stands for the time the model
takes; nothing sleeps."""

from __future__ import annotations

import json
from pathlib import Path

from memory_helpers import capture_in_process, exit_and_next_start

from catcode.app.build import build_session
from catcode.conversation.messages import Message
from catcode.memory.exit_capture import ExitBudget
from catcode.providers.scripted import RecordedRequest, ScriptedProvider, text_response
from catcode.safety.permissions import NoTerminalApprover
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import resolve_paths

VIM = {"type": "user", "name": "user-prefers-vim", "description": "vim", "content": "The user edits with vim."}


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_budget_starts_at_the_first_step_and_is_shared() -> None:
    clock = FakeClock()
    budget = ExitBudget(60, clock)
    clock.now += 500  # time before the exit does not count
    assert budget.remaining() == 60
    clock.now += 45
    assert budget.remaining() == 15
    clock.now += 30
    assert budget.remaining() == 0


def test_capture_and_the_session_summary_share_one_exit_budget(tmp_path: Path) -> None:
    """Issue 14 #15: each waited up to memory.exit_timeout, so exit could take twice the stated bound."""
    clock = FakeClock()

    def slow_extraction(request: RecordedRequest):
        clock.now += 59  # the model took 59 of the 60 seconds
        return text_response(json.dumps({"candidates": [VIM]}))

    def consolidation(request: RecordedRequest):
        clock.now += 2
        ops = [{"action": "add", "targetName": None, "entry": VIM}]
        return text_response(json.dumps({"operations": ops}))

    provider = ScriptedProvider(slow_extraction, consolidation)
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    settings = load_settings(home, project, {"CATCODE_USER_ID": "tester"}, {"memory": {"exit_timeout": 60}})
    session = build_session(
        settings, resolve_paths(settings, home, project), approver=NoTerminalApprover(), provider=provider, env={}
    )
    memory = capture_in_process(session.memory, session.recall)
    memory.exit_budget = ExitBudget(60, clock)
    for i in range(3):
        memory.history.append(Message.user(f"use vim {i}"))
        memory.history.append(Message.assistant(f"ok {i}"))
    said = exit_and_next_start(memory, session.shutdown)
    assert "Memory: 1 added, 0 updated — /memory list shows them" in said
    assert said[-1] == (
        "The session summary was skipped: memory capture used the whole exit time (memory.exit_timeout)."
    )
    provider.assert_complete()  # no summary call: nothing was left of the one budget


def test_a_memory_saved_again_exactly_as_it_is_is_not_announced_nor_offered_for_undo(tmp_path: Path) -> None:
    """Issue 14 #6: when the model re-adds a memory exactly as it is saved, nothing changes and nothing is
    committed. The exit said "1 added" and "Undo with /memory revert" with no id — a bare revert that undoes the
    earlier change which saved that memory."""

    def extraction(request: RecordedRequest):
        return text_response(json.dumps({"candidates": [VIM]}))

    def consolidation(request: RecordedRequest):
        return text_response(json.dumps({"operations": [{"action": "add", "targetName": None, "entry": VIM}]}))

    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    said: list[str] = []
    for _ in range(2):
        provider = ScriptedProvider(extraction, consolidation, *[text_response("- Talked about vim.")] * 2)
        settings = load_settings(home, project, {"CATCODE_USER_ID": "tester"}, {})
        session = build_session(
            settings, resolve_paths(settings, home, project), approver=NoTerminalApprover(), provider=provider, env={}
        )
        memory = capture_in_process(session.memory, session.recall)
        for i in range(3):
            memory.history.append(Message.user(f"I use vim {i}"))
            memory.history.append(Message.assistant(f"ok {i}"))
        said = exit_and_next_start(memory, session.shutdown)
        assert not any("Undo with /memory revert," in line for line in said), said
    assert "Nothing new to remember." in said, said
    assert not any(line.startswith("Memory: ") for line in said), said
    assert memory.store.get("user-prefers-vim") is not None


def test_a_change_whose_commit_failed_is_not_offered_a_bare_revert() -> None:
    """A bare revert undoes the last recorded change: after a failed commit that is an earlier one."""
    from types import SimpleNamespace

    from catcode.memory.exit_capture import undo_line

    line = undo_line(SimpleNamespace(git=SimpleNamespace(available=True)), None)
    assert line == "  This change could not be recorded in git (details in the log); the next memory change records it."
    assert undo_line(SimpleNamespace(git=SimpleNamespace(available=True)), "0123456789") == (
        "  Undo with /memory revert 0123456, or `catcode memory revert 0123456`."
    )
