"""Resume: conversations rebuilt from history.jsonl — tool pairs kept, compaction summaries standing in, history
compaction survived, nothing recorded (or extracted) twice."""

from __future__ import annotations

from pathlib import Path

from catcode.conversation.messages import Message, Role, TextBlock, ToolResultBlock, ToolUseBlock, history_problems
from catcode.memory.pipeline.cursor import DreamCursor
from catcode.memory.pipeline.history import HistoryLog
from catcode.memory.pipeline.history_compaction import compact_history
from catcode.session.compaction import SUMMARY_ACK, SUMMARY_MARKER
from catcode.session.reopen import EARLIER, INTERRUPTED, HistoryMarkers, find_session, list_sessions, rebuild


def log_for(tmp_path: Path, session: str) -> HistoryLog:
    return HistoryLog(tmp_path / "history.jsonl", session_id=session, lock_path=tmp_path / ".lock")


def tool_exchange(log: HistoryLog, ask: str, call_id: str, answer: str) -> None:
    log.append(Message.user(ask))
    log.append(Message(role=Role.ASSISTANT, content=[ToolUseBlock(id=call_id, name="bash", input={"command": "ls"})]))
    log.append(Message(role=Role.USER, content=[ToolResultBlock(tool_use_id=call_id, content="a.py\nb.py")]))
    log.append(Message.assistant(answer))


def test_round_trip_keeps_every_tool_pair(tmp_path: Path) -> None:
    log = log_for(tmp_path, "aaaa1111")
    log.append_event("session_start")
    tool_exchange(log, "list the files", "toolu_1", "Two files.")
    tool_exchange(log, "again", "toolu_2", "Still two.")
    messages = rebuild(log.read(), "aaaa1111")
    assert history_problems(messages) == []
    assert [m.role for m in messages] == [Role.USER, Role.ASSISTANT, Role.USER, Role.ASSISTANT] * 2
    assert messages[1].tool_uses[0].id == "toolu_1" and messages[2].tool_results[0].tool_use_id == "toolu_1"
    [info] = list_sessions(log)
    assert (info.id, info.first_message, info.messages) == ("aaaa1111", "list the files", 8)
    assert find_session(log, "aaaa") == info and find_session(log, "zzzz") is None


def test_an_unanswered_call_gets_an_interrupted_result(tmp_path: Path) -> None:
    log = log_for(tmp_path, "s1")
    log.append_event("session_start")
    log.append(Message.user("run it"))
    log.append(Message(role=Role.ASSISTANT, content=[ToolUseBlock(id="toolu_x", name="bash", input={})]))
    messages = rebuild(log.read(), "s1")  # the process died before the result was stored
    assert history_problems(messages) == []
    assert messages[-1].tool_results[0].content == INTERRUPTED


def test_context_compaction_and_clear_are_replayed(tmp_path: Path) -> None:
    log = log_for(tmp_path, "s1")
    markers = HistoryMarkers(log)
    log.append_event("session_start")
    tool_exchange(log, "first task", "toolu_1", "Done one.")
    log.append(Message.user("second task"))
    summary = [Message.user(f"{SUMMARY_MARKER}\nThe user asked for the first task; it is done."),
               Message.assistant(SUMMARY_ACK), Message.user("second task")]  # fmt: skip
    markers.replaced(summary)
    log.append(Message.assistant("Done two."))
    messages = rebuild(log.read(), "s1")
    assert [m.text for m in messages] == [summary[0].text, SUMMARY_ACK, "second task", "Done two."]
    markers.replaced([])  # /clear
    log.append(Message.user("fresh start"))
    log.append(Message.assistant("Hello again."))
    assert [m.text for m in rebuild(log.read(), "s1")] == ["fresh start", "Hello again."]


def test_resumed_sessions_chain_and_stop_where_they_were_taken_up(tmp_path: Path) -> None:
    first = log_for(tmp_path, "s1")
    first.append_event("session_start")
    tool_exchange(first, "first task", "toolu_1", "Done one.")
    second = log_for(tmp_path, "s2")
    second.append_event("session_start")
    HistoryMarkers(second).resumed("s1")
    first.append(Message.user("s1 went on afterwards"))  # not part of what s2 took up
    first.append(Message.assistant("ok"))
    second.append(Message.user("continue"))
    second.append(Message.assistant("Continuing."))
    texts = [m.text for m in rebuild(second.read(), "s2")]
    assert texts[0] == "first task" and texts[-2:] == ["continue", "Continuing."]
    assert "s1 went on afterwards" not in texts
    assert [s.id for s in list_sessions(second)] == ["s2", "s1"]  # most recently active first


def test_works_after_history_compaction_with_the_summary_standing_in(tmp_path: Path) -> None:
    log = log_for(tmp_path, "s1")
    log.append_event("session_start")
    for n in range(12):
        tool_exchange(log, f"task {n} " + "x" * 200, f"toolu_{n}", f"done {n}")
    cursor = DreamCursor(tmp_path / ".dream_cursor")
    cursor.advance(log.read()[-1].seq)  # everything was extracted: history compaction may fold it
    result = compact_history(log, cursor, char_budget=2_000, keep_recent=7, summarize=lambda r: "Twelve tasks.")
    assert result is not None and result.replaced_lines > 10
    records = log.read()
    assert records[0].type == "compacted_summary"
    messages = rebuild(records, "s1")
    assert history_problems(messages) == []  # a tool pair cut by the compaction boundary is not left half
    assert messages[0].text == f"{EARLIER}\nTwelve tasks."
    assert messages[-1].text == "done 11"
    assert all(isinstance(b, TextBlock) for b in messages[2].content)  # the kept part starts at a real turn


def test_restoring_records_nothing_again(tmp_path: Path) -> None:
    from catcode.hooks.bus import HookManager
    from catcode.providers.scripted import ScriptedProvider
    from catcode.safety.permissions import PermissionPolicy
    from catcode.session.agent import Agent
    from catcode.tools.base import ToolContext, ToolRegistry

    log = log_for(tmp_path, "s1")
    log.append_event("session_start")
    tool_exchange(log, "list the files", "toolu_1", "Two files.")
    before = log.read()
    agent = Agent(
        ScriptedProvider(), ToolRegistry([]), HookManager(), PermissionPolicy(), None,  # type: ignore[arg-type]
        ToolContext(project_root=tmp_path), system_prompt="",
    )  # fmt: skip
    agent.listeners.append(log.append)
    agent.replace_listeners.append(HistoryMarkers(log).replaced)
    agent.restore(rebuild(before, "s1"))
    assert len(agent.messages) == 4 and log.read() == before  # nothing appended: never extracted twice
