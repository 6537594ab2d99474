"""``Checkpointer`` on a real agent: one snapshot before a turn's first change (file tools and bash alike), none for
a turn that only reads or only writes memory, and the turn's changes counted at the next snapshot; the conversation
rewinds and comes back."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from catcode.checkpoints.session import Checkpointer
from catcode.checkpoints.store import store_for
from catcode.conversation.messages import history_problems
from catcode.hooks.bus import HookEvent, HookManager
from catcode.providers.scripted import ScriptedProvider, text_response, tool_response
from catcode.safety.permissions import NoTerminalApprover, PermissionMode, PermissionPolicy
from catcode.session.agent import Agent
from catcode.tools.base import Permission, Tool, ToolContext, ToolRegistry, ToolResult
from catcode.tools.builtin import builtin_tools


def _agent(tmp_path: Path, provider: ScriptedProvider) -> tuple[Agent, Checkpointer, list[str]]:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    hooks = HookManager()
    context = ToolContext(project_root=root)
    agent = Agent(provider, ToolRegistry(builtin_tools()), hooks, PermissionPolicy(PermissionMode.BYPASS),
                  NoTerminalApprover(), context, system_prompt="s")  # fmt: skip
    said: list[str] = []
    checkpointer = Checkpointer(store_for(tmp_path / "home", "p", root, 1.0), "sess", agent, said.append)
    hooks.on(HookEvent.USER_PROMPT_SUBMIT, checkpointer.submitted)
    agent.listeners.append(checkpointer.stored)
    agent.turn_end_listeners.append(checkpointer.end_turn)
    context.before_change = checkpointer.before_change
    return agent, checkpointer, said


def _snapshots(checkpointer: Checkpointer) -> int:
    """The snapshots in the shadow repository (each is a commit of its own)."""
    return int(checkpointer.store.repo.git("rev-list", "--all", "--count"))


class _Note(BaseModel):
    text: str


def test_one_snapshot_per_changing_turn_and_none_for_reading_or_memory(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        tool_response("edit_file", {"path": "a.txt", "old_string": "one", "new_string": "two"}, id="t1"),
        tool_response("bash", {"command": "echo three > b.txt"}, id="t2"),
        text_response("done"),
        tool_response("read_file", {"path": "a.txt"}, id="t3"),
        text_response("read"),
        tool_response("memory_write", {"text": "use vim"}, id="t4"),
        text_response("noted"),
        tool_response("bash", {"command": "rm b.txt"}, id="t5"),
        text_response("removed"),
    )
    agent, checkpointer, said = _agent(tmp_path, provider)
    noted: list[str] = []

    def memory_write(args: _Note, ctx: ToolContext) -> ToolResult:
        noted.append(args.text)
        return ToolResult("saved")

    agent.tools.register(Tool("memory_write", "Save a memory.", _Note, memory_write, Permission.WRITE))
    agent.run_turn("change things")
    assert _snapshots(checkpointer) == 1  # before the edit; its end is a line in the records, not a snapshot
    agent.run_turn("just look")
    agent.run_turn("remember to use vim")
    assert noted == ["use vim"] and _snapshots(checkpointer) == 1  # memory is not the project's files
    assert checkpointer.code_target(checkpointer.turns[1]) is None  # nothing changed since message 2
    agent.run_turn("remove b")
    assert _snapshots(checkpointer) == 2
    checkpointer.store.settle()  # what `catcode checkpoints` does: turn 4 is counted against the files now
    records = checkpointer.store.all()
    assert [(c.turn, c.message, c.files, c.outside) for c in records] == [
        (1, "change things", ["M a.txt", "A b.txt"], []),
        (4, "remove b", ["D b.txt"], []),
    ]
    assert records[0].written == ["a.txt"] and records[0].ran and records[1].written == []
    assert said == []
    plan = checkpointer.plan(checkpointer.code_target(checkpointer.turns[0]))
    plan.apply()
    root = tmp_path / "proj"
    assert (root / "a.txt").read_text() == "one\n" and not (root / "b.txt").exists()


def test_the_conversation_rewinds_to_before_a_message_and_comes_back(tmp_path: Path) -> None:
    provider = ScriptedProvider(text_response("first"), text_response("second"), text_response("again"))
    agent, checkpointer, _ = _agent(tmp_path, provider)
    agent.run_turn("one")
    agent.run_turn("two")
    whole = list(agent.messages)
    assert checkpointer.rewind_conversation(checkpointer.turns[1]) == "two"
    assert [m.text for m in agent.messages] == ["one", "first"]
    assert [t.number for t in checkpointer.turns] == [1]
    assert checkpointer.undo_conversation()
    assert agent.messages == whole and [t.number for t in checkpointer.turns] == [1, 2]
    checkpointer.rewind_conversation(checkpointer.turns[0])
    agent.run_turn("fresh")
    assert [m.text for m in provider.requests[-1].messages] == ["fresh"]
    assert history_problems(agent.messages) == []


def test_a_failing_checkpoint_is_one_line_and_the_tool_still_runs(tmp_path: Path) -> None:
    provider = ScriptedProvider(tool_response("bash", {"command": "echo hi > c.txt"}, id="t1"), text_response("ok"))
    agent, checkpointer, said = _agent(tmp_path, provider)
    checkpointer.store.repo.binary = None  # as without git installed
    agent.run_turn("go")
    assert said == ["No checkpoint for this turn (its changes cannot be rewound): Checkpoints need git, which is not "
                    "installed"]  # fmt: skip
    assert (tmp_path / "proj" / "c.txt").exists()


def test_a_resumed_session_sees_the_conversation_as_rewound_and_as_undone(tmp_path: Path) -> None:
    from catcode.memory.pipeline.history import HistoryLog
    from catcode.session.reopen import HistoryMarkers, rebuild

    provider = ScriptedProvider(text_response("first"), text_response("second"), text_response("third"))
    agent, checkpointer, _ = _agent(tmp_path, provider)
    log = HistoryLog(tmp_path / "history.jsonl", session_id="s1", lock_path=tmp_path / ".lock")
    log.append_event("session_start")
    agent.listeners.append(log.append)
    markers = HistoryMarkers(log)
    agent.replace_listeners.append(markers.replaced)
    checkpointer.markers = markers
    agent.run_turn("one")
    agent.run_turn("two")
    checkpointer.rewind_conversation(checkpointer.turns[0])  # back to before the first message
    assert [m.text for m in rebuild(log.read(), "s1")] == []
    checkpointer.undo_conversation()
    assert [m.text for m in rebuild(log.read(), "s1")] == ["one", "first", "two", "second"]
    checkpointer.rewind_conversation(checkpointer.turns[1])
    agent.run_turn("instead")
    assert [m.text for m in rebuild(log.read(), "s1")] == ["one", "first", "instead", "third"]


WAIT = 60.0  # seconds, at most, for something the test waits on; each wait returns as soon as it shows


def _wait_for(ready: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not ready():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def _release(fifo: Path) -> None:
    """Let the held filter go on: a line into the pipe it reads, once it has it open."""
    deadline = time.monotonic() + WAIT
    while True:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError:  # nobody reads it yet
            if time.monotonic() > deadline:
                return
            time.sleep(0.01)
    os.write(fd, b"go\n")
    os.close(fd)


def test_a_rewind_after_the_background_preparation_gives_back_what_changed_while_it_ran(tmp_path: Path) -> None:
    started, release, script = tmp_path / "filter-started", tmp_path / "release", tmp_path / "held-filter"
    os.mkfifo(release)
    # Held once (git may run the filter again for the same file, when it writes its index).
    hold = f'if [ ! -e "{started}" ]; then touch "{started}"; read go < "{release}"; fi'
    script.write_text(f"#!/bin/sh\n{hold}\nexec cat\n")
    script.chmod(0o755)
    # The person's git configuration (which the shadow repository honours) holds the preparation's git add on one file.
    (Path(os.environ["HOME"]) / ".gitconfig").write_text(f'[filter "held"]\n\tclean = {script}\n')
    provider = ScriptedProvider(
        tool_response("bash", {"command": "echo by the turn > a.txt"}, id="t1"), text_response("done")
    )
    agent, checkpointer, said = _agent(tmp_path, provider)
    root = tmp_path / "proj"
    (root / ".gitattributes").write_text("*.held filter=held\n")
    (root / "data.held").write_text("held up\n")
    reached, take = threading.Event(), checkpointer.before_change

    def before_change(tool: Tool, args: BaseModel) -> None:
        reached.set()
        take(tool, args)

    agent.context.before_change = before_change
    preparing = threading.Thread(target=checkpointer.store.warm)  # what a session starts with
    turn = threading.Thread(target=agent.run_turn, args=("change a.txt",))
    preparing.start()
    try:
        _wait_for(started.exists, "the preparation's git add to reach the held file")
        (root / "a.txt").write_text("changed while the preparation ran\n")
        turn.start()
        assert reached.wait(WAIT)
        # The command waits for the checkpoint, which waits for what remains of the preparation.
        assert (root / "a.txt").read_text() == "changed while the preparation ran\n"
    finally:
        _release(release)
        preparing.join(WAIT)
        if turn.is_alive():
            turn.join(WAIT)
    assert not preparing.is_alive() and not turn.is_alive()
    assert (root / "a.txt").read_text() == "by the turn\n" and said == []
    assert _snapshots(checkpointer) == 1  # the preparation takes none
    checkpointer.plan(checkpointer.code_target(checkpointer.turns[0])).apply()
    assert (root / "a.txt").read_text() == "changed while the preparation ran\n"
    assert (root / "data.held").read_text() == "held up\n"
