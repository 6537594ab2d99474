"""``Checkpointer`` on a real agent: one snapshot before a turn's first change (file tools and bash alike), none for
a turn that only reads or only writes memory, and the turn's changes counted at the next snapshot; the conversation
rewinds and comes back."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from catcode.checkpoints.session import Checkpointer
from catcode.checkpoints.store import store_for
from catcode.conversation.hook_bus import HookEvent, HookManager
from catcode.conversation.messages import history_problems
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
