"""The cursor-driven pipeline: exit capture, Dream, recovery, compaction flush — nothing twice, nothing lost."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from catcode.config import load_settings, resolve_paths
from catcode.errors import ProviderError
from catcode.memory.builder import build_memory_runtime
from catcode.memory.exit_capture import capture_at_exit
from catcode.memory.runtime import MemoryRuntime
from catcode.messages import Message
from catcode.providers.scripted import ScriptedProvider, text_response

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
    assert said == [] and runtime.service.pending() == 2


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
    notice = runtime.notices.get(timeout=10)
    assert notice.startswith("1 memory file(s) could not be read and were skipped")
    assert (runtime.paths.user_memory / "broken.md").read_text() == "no front matter here\n"
