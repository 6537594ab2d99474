"""The cursor-driven pipeline: exit capture, Dream, recovery, compaction flush — nothing twice, nothing lost."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from catcode.conversation.messages import Message
from catcode.errors import ProviderError
from catcode.memory.builder import build_memory_runtime
from catcode.memory.exit_capture import capture_at_exit
from catcode.memory.runtime import MemoryRuntime
from catcode.providers.scripted import ScriptedProvider, text_response
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import resolve_paths
from tests.slowness import bound

VIM = {"type": "user", "name": "user-prefers-vim", "description": "用户偏好 vim 编辑器", "content": "用户偏好 vim"}


def extraction(*candidates: dict) -> object:
    return text_response(json.dumps({"candidates": list(candidates)}, ensure_ascii=False))


def consolidation(*entries: dict) -> object:
    ops = [{"action": "add", "targetName": None, "entry": e} for e in entries]
    return text_response(json.dumps({"operations": ops}, ensure_ascii=False))


def make_runtime(tmp_path: Path, provider, **memory) -> MemoryRuntime:
    home, root = tmp_path / "home", tmp_path / "project"
    root.mkdir(exist_ok=True)
    settings = load_settings(home, root, {"CATCODE_USER_ID": "tester"}, {"memory": memory} if memory else {})
    return build_memory_runtime(settings, resolve_paths(settings, home, root), provider=provider)


def record_exchanges(runtime: MemoryRuntime, n: int, text: str = "use vim") -> None:
    for i in range(n):
        runtime.service.history.append(Message.user(f"{text} {i}"))
        runtime.service.history.append(Message.assistant(f"ok {i}"))


def extraction_requests(provider: ScriptedProvider) -> list:
    return [r for r in provider.requests if "You are a memory extractor" in r.messages[0].text]


def test_exit_capture_processes_once_and_advances(tmp_path: Path) -> None:
    provider = ScriptedProvider(extraction(VIM), consolidation(VIM))
    runtime = make_runtime(tmp_path, provider)
    record_exchanges(runtime, 2)
    said: list[str] = []
    capture_at_exit(runtime, said.append)
    assert said[0] == "Saving memories… (Ctrl+C to skip)"
    assert "Memory: 1 added, 0 updated" in said[1] and "user-prefers-vim" in said[2]
    assert runtime.store.get("user-prefers-vim") is not None
    assert runtime.service.pending() == 0
    assert "use vim 0" in extraction_requests(provider)[0].messages[0].text
    provider.assert_complete()
    # the next session processes nothing again
    again = make_runtime(tmp_path, ScriptedProvider())
    assert again.service.pending() == 0


def test_failure_keeps_cursor_and_next_start_recovers_exactly_those_lines(tmp_path: Path) -> None:
    runtime = make_runtime(tmp_path, ScriptedProvider(ProviderError("API overloaded (529) after 4 retries")))
    record_exchanges(runtime, 2)
    said: list[str] = []
    capture_at_exit(runtime, said.append)
    assert "Memory capture failed (API overloaded (529)" in said[-1]
    assert runtime.cursor.get() == 0 and runtime.service.pending() == 4
    assert runtime.store.load_all() == []

    provider = ScriptedProvider(extraction(VIM), consolidation(VIM))
    second = make_runtime(tmp_path, provider)
    session = SimpleNamespace(agent=SimpleNamespace(listeners=[]), exit_steps=[])
    second.attach(session)
    second.service.wait_background(10)
    window = extraction_requests(provider)[0].messages[0].text
    assert all(f"use vim {i}" in window for i in range(2))
    line = second.notices.get_nowait()
    assert line.startswith("Recovered 1 memory from an interrupted session")
    provider.assert_complete()
    third = make_runtime(tmp_path, ScriptedProvider())
    assert third.service.pending() == 0


def test_nothing_worth_remembering_advances_cursor(tmp_path: Path) -> None:
    runtime = make_runtime(tmp_path, ScriptedProvider(extraction()))
    record_exchanges(runtime, 2)
    result = runtime.service.process_pending(why="dream")
    assert result.reviewed and result.report.skipped_reason == "nothing worth remembering"
    assert runtime.service.pending() == 0


def test_too_few_messages_wait_without_a_call(tmp_path: Path) -> None:
    runtime = make_runtime(tmp_path, ScriptedProvider())
    record_exchanges(runtime, 1)
    said: list[str] = []
    capture_at_exit(runtime, said.append)
    assert said == ["2 new messages kept; memory runs from 4 — /memory saves them now"]
    assert runtime.service.pending() == 2


def test_dream_fires_at_threshold_in_background(tmp_path: Path) -> None:
    provider = ScriptedProvider(extraction(VIM), consolidation(VIM))
    runtime = make_runtime(tmp_path, provider, dream_min_lines=6)
    for i in range(5):
        runtime.service.record(Message.user(f"message {i}"))
    assert runtime.service._dream is None
    runtime.service.record(Message.assistant("sixth"))
    runtime.service.wait_background(10)
    assert runtime.store.get("user-prefers-vim") is not None
    assert runtime.notices.get_nowait().startswith("Memory (dream): added user-prefers-vim")
    assert runtime.service.pending() == 0


def test_dream_failure_backs_off_and_keeps_cursor(tmp_path: Path) -> None:
    provider = ScriptedProvider(ProviderError("down"))
    runtime = make_runtime(tmp_path, provider, dream_min_lines=4)
    for text in "abcd":
        runtime.service.record(Message.user(text) if text in "ac" else Message.assistant(text))
    runtime.service.wait_background(10)
    assert runtime.service.last_dream.error == "down"
    assert runtime.cursor.get() == 0
    runtime.service.record(Message.user("e"))  # backoff: no new run, no unexpected provider call
    assert runtime.service._dream is not None and not runtime.service._dream.is_alive()
    provider.assert_complete()


def test_flush_processes_pending_once(tmp_path: Path) -> None:
    provider = ScriptedProvider(extraction())
    runtime = make_runtime(tmp_path, provider)
    record_exchanges(runtime, 3)
    runtime.flush([])
    runtime.flush([])  # nothing pending any more: no second call
    assert len(extraction_requests(provider)) == 1
    provider.assert_complete()


def test_users_are_isolated(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "project"
    root.mkdir()
    stores = {}
    for user in ("alice", "bob"):
        settings = load_settings(home, root, {"CATCODE_USER_ID": user}, {})
        stores[user] = build_memory_runtime(settings, resolve_paths(settings, home, root)).store
    from catcode.memory.store.models import MemoryEntry, MemoryType

    stores["alice"].update(MemoryEntry(name="alice-likes-emacs", description="d", type=MemoryType.USER, content="c"))
    assert [e.name for e in stores["alice"].load_all()] == ["alice-likes-emacs"]
    assert stores["bob"].load_all() == []


@pytest.mark.parametrize("mode", [0o700])
def test_memory_dirs_are_private(tmp_path: Path, mode: int) -> None:
    runtime = make_runtime(tmp_path, None)
    assert (runtime.paths.memory_root.stat().st_mode & 0o777) == mode


def test_exit_capture_says_when_nothing_was_new(tmp_path: Path) -> None:
    runtime = make_runtime(tmp_path, ScriptedProvider(extraction()))
    record_exchanges(runtime, 2)
    said: list[str] = []
    capture_at_exit(runtime, said.append)
    assert said == ["Saving memories… (Ctrl+C to skip)", "Nothing new to remember."]
    assert runtime.service.pending() == 0


def test_start_reports_unreadable_memory_files_in_the_background(tmp_path: Path) -> None:
    runtime = make_runtime(tmp_path, ScriptedProvider())
    runtime.paths.user_memory.mkdir(parents=True, exist_ok=True)
    (runtime.paths.user_memory / "broken.md").write_text("no front matter here\n")
    runtime.attach(SimpleNamespace(agent=SimpleNamespace(listeners=[]), exit_steps=[]))
    notice = runtime.notices.get(timeout=bound(10))
    assert notice.startswith("1 memory file(s) could not be read and were skipped")
    assert (runtime.paths.user_memory / "broken.md").read_text() == "no front matter here\n"


# -- issue 14: nothing stuck, nothing lost -----------------------------------------------------------------------

TESTS = {"type": "feedback", "name": "no-touch-tests", "description": "别动 tests 目录", "content": "never edit tests/"}
MALFORMED = text_response('{"candidates": [{"type": "user", "name": "user-prefers-vim", "description": ')
EMPTY = text_response("")
TRUNCATED = text_response('{"candidates": [{"type": "user", "name": "user-prefers-vim", "description": "vim", '
                          '"content": "vim"}, {"type": "feedback", "name": "no-touch-tests", "descr')  # fmt: skip


def kinds(provider: ScriptedProvider) -> list[str]:
    def kind(request: object) -> str:
        text = request.messages[0].text  # type: ignore[attr-defined]
        return "extract" if "memory extractor" in text else "consolidate" if "memory consolidator" in text else "other"

    return [kind(r) for r in provider.requests]


def test_a_few_huge_messages_never_stall_extraction(tmp_path: Path) -> None:
    """Issue 14 #1: once the oldest pending messages passed 120K characters the window held 1 to 3 of them, the
    manager called that too few, and three sessions made no LLM call while the pending count grew."""
    provider = ScriptedProvider(extraction(VIM), consolidation(VIM), text_response("- a long log was pasted"))
    runtime = make_runtime(tmp_path, provider)
    runtime.history.append(Message.user("log: " + "x" * 300_000))
    runtime.history.append(Message.assistant("summary: " + "y" * 150_000))
    record_exchanges(runtime, 5)
    said: list[str] = []
    capture_at_exit(runtime, said.append)
    assert kinds(provider) == ["extract", "consolidate", "other"]  # then history.jsonl is compacted
    prompt = provider.requests[0].messages[0].text
    assert "use vim 4" in prompt and "characters]" in prompt  # the huge ones shortened, the rest still in
    assert runtime.service.pending() == 0 and runtime.store.get("user-prefers-vim") is not None


def test_the_minimum_applies_to_what_is_waiting_not_to_what_fits(tmp_path: Path, monkeypatch) -> None:
    from catcode.memory.pipeline import cursor

    monkeypatch.setattr(cursor, "WINDOW_MAX_MESSAGES", 2)
    provider = ScriptedProvider(extraction(), extraction())
    runtime = make_runtime(tmp_path, provider)
    record_exchanges(runtime, 2)  # four waiting, two per window
    assert runtime.service.process_pending(why="command").reviewed
    assert runtime.service.pending() == 2
    assert not runtime.service.process_pending(why="command").reviewed  # now only two wait: too few
    assert kinds(provider) == ["extract"]


def test_a_dream_that_could_not_review_does_not_start_again_on_the_next_message(tmp_path: Path) -> None:
    """Issue 14 #1: with 50 lines pending and a window that never advanced, Dream started on every message."""
    provider = ScriptedProvider()
    runtime = make_runtime(tmp_path, provider, dream_min_lines=4, extract_min_messages=10)
    for i in range(4):
        runtime.service.record(Message.user(f"m{i}"))
    runtime.service.wait_background(10)
    first = runtime.service._dream
    assert first is not None and runtime.service.last_dream.report.skipped_reason.startswith("not enough")
    runtime.service.record(Message.user("one more"))
    assert runtime.service._dream is first  # backing off: no new run
    provider.assert_complete()


@pytest.mark.parametrize("bad", [MALFORMED, EMPTY, TRUNCATED], ids=["malformed", "empty", "truncated"])
def test_an_unreadable_extraction_reply_is_a_failure_and_the_next_start_recovers(tmp_path: Path, bad) -> None:
    """Issue 14 #2: exit said "Nothing new to remember." and moved the cursor past the conversation."""
    runtime = make_runtime(tmp_path, ScriptedProvider(bad))
    record_exchanges(runtime, 2)
    said: list[str] = []
    capture_at_exit(runtime, said.append)
    assert "Nothing new to remember." not in said
    assert said[-1] == (
        "Memory capture failed: the model's extraction reply could not be read (empty, malformed or cut off) "
        "(attempt 1); it will be retried at the next start."
    )
    assert runtime.cursor.get() == 0 and runtime.store.load_all() == []

    provider = ScriptedProvider(extraction(VIM), consolidation(VIM))
    second = make_runtime(tmp_path, provider)
    second.attach(SimpleNamespace(agent=SimpleNamespace(listeners=[]), exit_steps=[]))
    second.service.wait_background(10)
    assert second.store.get("user-prefers-vim") is not None and second.service.pending() == 0
    assert second.service.attempts.current(second.cursor.get()).failures == 0


def test_a_truncated_consolidation_saves_nothing_until_a_whole_reply_saves_both(tmp_path: Path) -> None:
    cut = text_response(
        '{"operations": [{"action": "add", "targetName": null, "entry": ' + json.dumps(VIM) + '}, {"action": "add", '
    )
    provider = ScriptedProvider(extraction(VIM, TESTS), cut, extraction(VIM, TESTS), consolidation(VIM, TESTS))
    runtime = make_runtime(tmp_path, provider)
    record_exchanges(runtime, 2)
    with pytest.raises(Exception, match="consolidation reply could not be read"):
        runtime.service.process_pending(why="command")
    assert runtime.store.load_all() == [] and runtime.cursor.get() == 0
    runtime.service.process_pending(why="command")
    assert sorted(e.name for e in runtime.store.load_all()) == ["no-touch-tests", "user-prefers-vim"]
    provider.assert_complete()


def test_a_model_that_always_replies_badly_is_retried_a_bounded_number_of_times_then_reported(tmp_path: Path) -> None:
    from structlog.testing import capture_logs

    record_exchanges(make_runtime(tmp_path, ScriptedProvider()), 2)
    from catcode.memory.service import MemoryDoor
    from catcode.memory.words import status_lines

    lines: list[list[str]] = []
    statuses: list[list[str]] = []
    for _ in range(3):  # three sessions, each exiting with a broken reply
        runtime = make_runtime(tmp_path, ScriptedProvider(MALFORMED))
        said: list[str] = []
        with capture_logs() as logs:
            capture_at_exit(runtime, said.append)
        lines.append(said)
        statuses.append(status_lines(MemoryDoor(runtime).status()))  # what /memory status says meanwhile
    assert "(attempt 2)" in lines[1][-1]
    assert any(line.startswith("failing:        the model's extraction reply could not be read") and
               "(2 of 3 unreadable replies, 0 errors)" in line for line in statuses[1])  # fmt: skip
    assert lines[2][-1].startswith("Memory: skipped 4 messages after 3 replies from the model that could not be read")
    assert any(entry["event"] == "memory_window_skipped" for entry in logs)
    skipped = [r for r in runtime.history.read() if r.type == "extraction_skipped"]
    assert len(skipped) == 1 and skipped[0].model_extra["messages"] == 4
    assert runtime.service.pending() == 0  # nothing re-runs at every start for ever

    # Between failures, the background runs wait (the wait survives a restart); an explicit run does not.
    record_exchanges(runtime, 30)
    runtime.service.attempts.failed(runtime.cursor.get(), "broken", bad_reply=True)
    again = make_runtime(tmp_path, ScriptedProvider(), dream_min_lines=4)
    assert again.service.maybe_dream() is False
    assert again.service.process_pending(why="compaction", respect_backoff=True).deferred


def test_one_bad_history_line_is_skipped_logged_and_reported_by_the_doctor(tmp_path: Path) -> None:
    """Issue 14 #3: a line with content in the wrong shape broke every later capture, and doctor said healthy."""
    from catcode.memory.pipeline.history_check import HistoryCheck
    from catcode.memory.store.doctor import run_doctor

    provider = ScriptedProvider(extraction(VIM), consolidation(VIM))
    runtime = make_runtime(tmp_path, provider)
    record_exchanges(runtime, 1)
    with runtime.paths.history_file.open("a") as history:
        history.write('{"seq":100,"type":"message","role":"user","content":"x"}\n')
    record_exchanges(runtime, 2, text="prefer vim")
    said: list[str] = []
    capture_at_exit(runtime, said.append)
    assert "Memory: 1 added" in said[1] and runtime.service.pending() == 0

    check = HistoryCheck(runtime.paths.history_file, runtime.paths.project_memory / ".history.lock", tmp_path)
    report = run_doctor(runtime, extra=[check])
    assert not report.healthy and "Memory is healthy" not in report.text()
    assert "1 line is not valid and skipped by every reader: line 3 (seq 100: content:" in report.text()
    fixed = run_doctor(runtime, fix=True, extra=[check])
    assert fixed.healthy and "moved 1 bad line(s)" in fixed.text()
    rejected = runtime.paths.history_file.with_name("history-rejected.jsonl").read_text()
    assert rejected == '{"seq":100,"type":"message","role":"user","content":"x"}\n'


def test_history_stays_within_its_budget_after_every_capture(tmp_path: Path) -> None:
    """Issue 14 #4: compaction ran only after a background Dream, so five ordinary sessions reached 114K
    characters against the 32K budget."""

    def answer(request):
        text = request.messages[0].text
        if "memory extractor" in text:
            return text_response('{"candidates": []}')
        return text_response("- earlier work, summarised")

    budget = 32_000
    for session in range(5):
        runtime = make_runtime(tmp_path, ScriptedProvider(*[answer] * 3))
        for i in range(6):
            runtime.history.append(Message.user(f"session {session} message {i} " + "z" * 4_000))
        capture_at_exit(runtime, [].append)
        chars = len(runtime.paths.history_file.read_text(encoding="utf-8"))
        assert runtime.service.pending() == 0 and chars <= budget, (session, chars)
    assert any(r.type == "compacted_summary" for r in runtime.history.read())


def test_a_correction_about_this_projects_files_stays_with_this_project(tmp_path: Path) -> None:
    """Issue 14 #10: "别动 tests 目录" was saved as feedback, which goes to the user scope, and was then injected in
    every other project. The rule: a user or feedback memory naming this project's files stays with it."""
    from catcode.memory.injection import MemoryInjectionHook
    from catcode.memory.store.models import Scope

    (tmp_path / "project" / "tests").mkdir(parents=True)
    provider = ScriptedProvider(extraction(TESTS, VIM), consolidation(TESTS, VIM))
    runtime = make_runtime(tmp_path, provider)
    runtime.history.append(Message.user("用 vim 编辑，别动 tests 目录"))
    runtime.history.append(Message.assistant("好的，记住了。"))
    record_exchanges(runtime, 1)
    said: list[str] = []
    capture_at_exit(runtime, said.append)
    assert "  + no-touch-tests — 别动 tests 目录 (this project: it names tests of this project)" in said
    assert "  + user-prefers-vim — 用户偏好 vim 编辑器 (all projects)" in said
    assert runtime.store.scope_of("no-touch-tests") is Scope.PROJECT
    assert runtime.store.get("no-touch-tests").type.value == "feedback"  # its type is kept

    home = tmp_path / "home"
    other_root = tmp_path / "other"
    other_root.mkdir()
    settings = load_settings(home, other_root, {"CATCODE_USER_ID": "tester"}, {})
    other = build_memory_runtime(settings, resolve_paths(settings, home, other_root))
    text = MemoryInjectionHook(other.store).memory_index_text()
    assert text is not None and "user-prefers-vim" in text and "no-touch-tests" not in text


def test_an_apply_killed_half_way_is_finished_by_the_next_run_without_asking_the_model_again(tmp_path: Path) -> None:
    """Exactly once under kill -9: the operations are recorded before the apply, the cursor moves after it."""
    from catcode.memory.pipeline.cursor import HistoryWindow, intent_path
    from catcode.memory.store.models import CandidateMemory, MemoryAction, MemoryOperation

    runtime = make_runtime(tmp_path, ScriptedProvider())  # any model call would fail the test
    record_exchanges(runtime, 2)
    window = HistoryWindow(runtime.history, runtime.cursor)
    add = MemoryOperation(action=MemoryAction.ADD, entry=CandidateMemory(**VIM))
    window.applying([add], "session-end")  # ...and the process was killed here, before the apply
    assert intent_path(runtime.cursor).exists() and runtime.cursor.get() == 0

    later = make_runtime(tmp_path, ScriptedProvider())
    result = later.service.process_pending(why="recovery")
    assert later.store.get("user-prefers-vim") is not None and later.cursor.get() == window.end
    assert not intent_path(later.cursor).exists() and later.provider.requests == [] and result.messages == 0
    assert later.git.log(1)[0].subject == "session-end (finished): add user-prefers-vim"


@pytest.mark.parametrize("seq", [1, 100_000])
def test_a_hand_edited_line_with_any_seq_neither_stalls_nor_skips_the_lines_after_the_cursor(
    tmp_path: Path, seq: int
) -> None:
    provider = ScriptedProvider(extraction(), extraction())
    runtime = make_runtime(tmp_path, provider)
    record_exchanges(runtime, 3)
    runtime.service.process_pending(why="command")
    record_exchanges(runtime, 1)
    with runtime.paths.history_file.open("a") as history:
        history.write(json.dumps({"seq": seq, "type": "message", "role": "user", "content": "x"}) + "\n")
    record_exchanges(runtime, 1)
    seqs = [r.seq for r in runtime.history.read()]
    assert len(seqs) == len(set(seqs)) == 10  # no seq taken twice, the bad line is not a record
    assert runtime.service.pending() == 4
    assert runtime.service.process_pending(why="command").reviewed and runtime.cursor.get() == max(seqs)


def test_a_renamed_memory_is_said_at_exit(tmp_path: Path) -> None:
    from catcode.memory.store.models import MemoryEntry, MemoryType

    other = tmp_path / "other"
    other.mkdir()
    home = tmp_path / "home"
    settings = load_settings(home, other, {"CATCODE_USER_ID": "tester"}, {})
    elsewhere = build_memory_runtime(settings, resolve_paths(settings, home, other))
    elsewhere.store.update(MemoryEntry(name="user-prefers-vim", description="p", type=MemoryType.PROJECT, content="x"))
    runtime = make_runtime(tmp_path, ScriptedProvider(extraction(VIM), consolidation(VIM)))
    record_exchanges(runtime, 2)
    said: list[str] = []
    capture_at_exit(runtime, said.append)
    note = "saved as user-prefers-vim-2: user-prefers-vim is taken by a memory of another project"
    assert f"  + user-prefers-vim-2 — 用户偏好 vim 编辑器 (all projects; {note})" in said
