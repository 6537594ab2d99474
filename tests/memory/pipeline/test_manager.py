"""MemoryManager: the seed's report and watermark cases over the real store, a real history.jsonl and its cursor
(the watermark), and a scripted model."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from memory_helpers import RecordingVersioning, seed_vim

from catcode.conversation.messages import Message
from catcode.errors import ProviderError
from catcode.memory.pipeline.consolidator import MemoryConsolidator
from catcode.memory.pipeline.cursor import DreamCursor, HistoryWindow
from catcode.memory.pipeline.extractor import MemoryExtractor
from catcode.memory.pipeline.history import HistoryLog
from catcode.memory.pipeline.manager import NOTHING_WORTH_REMEMBERING, MemoryManager
from catcode.memory.store.models import MemoryEntry, MemoryType
from catcode.memory.store.store import MemoryStore
from catcode.providers.scripted import ScriptedProvider, text_response
from catcode.settings.memory import MemoryConfig

VIM = {"type": "user", "name": "user-prefers-vim", "description": "用户偏好 vim 编辑器", "content": "vim"}
TESTS = {"type": "feedback", "name": "no-touch-tests", "description": "别动 tests 目录", "content": "never edit tests/"}


class History:
    """A session's history.jsonl and .dream_cursor: ``conversation(n)`` makes it hold ``n`` messages in all."""

    def __init__(self, root: Path) -> None:
        self.log = HistoryLog(root / "history.jsonl", session_id="s1", lock_path=root / ".history.lock")
        self.cursor = DreamCursor(root / ".dream_cursor")
        self.said = 0

    def conversation(self, n: int) -> HistoryWindow:
        """Append messages up to ``n`` in all (u0, a1, u2, ...) and return the window after the cursor."""
        for i in range(self.said, n):
            self.log.append(Message.user(f"u{i}") if i % 2 == 0 else Message.assistant(f"a{i}"))
        self.said = max(self.said, n)
        return HistoryWindow(self.log, self.cursor)


@pytest.fixture
def history(tmp_path: Path) -> History:
    return History(tmp_path / "project")


def extracted(*items: dict[str, str]) -> object:
    return text_response(json.dumps({"candidates": list(items)}, ensure_ascii=False))


def decided(*operations: dict[str, object]) -> object:
    return text_response(json.dumps({"operations": list(operations)}, ensure_ascii=False))


def manager_for(store: MemoryStore, provider: ScriptedProvider, **config: object) -> MemoryManager:
    settings = MemoryConfig(**config)  # type: ignore[arg-type]
    return MemoryManager(store, MemoryExtractor(provider, settings), MemoryConsolidator(provider, settings), settings)


def test_too_few_messages_make_no_call_and_keep_the_watermark(store: MemoryStore, history: History) -> None:
    provider = ScriptedProvider()
    manager = manager_for(store, provider)
    report = manager.extract_and_consolidate(history.conversation(3), why="session-end")
    assert (report.candidates_found, report.skipped_reason) == (0, "not enough new messages (3 < 4)")
    assert provider.requests == []
    provider.queue(extracted())
    manager.extract_and_consolidate(history.conversation(4), why="session-end")  # the first three are still in it
    assert "USER: u0" in provider.requests[0].messages[0].text


def test_nothing_worth_remembering_advances_the_watermark(store: MemoryStore, history: History) -> None:
    provider = ScriptedProvider(extracted())
    manager = manager_for(store, provider)
    report = manager.extract_and_consolidate(history.conversation(6), why="session-end")
    assert (report.candidates_found, report.skipped_reason) == (0, NOTHING_WORTH_REMEMBERING)
    report = manager.extract_and_consolidate(history.conversation(8), why="session-end")
    assert report.skipped_reason == "not enough new messages (2 < 4)"
    assert len(provider.requests) == 1


def test_applied_report_and_files(store: MemoryStore, history: History) -> None:
    store.update(MemoryEntry(name="old-fact", description="d", type=MemoryType.PROJECT, content="c"))
    provider = ScriptedProvider(
        extracted(VIM, TESTS),
        decided(
            {"action": "add", "targetName": None, "entry": VIM},
            {"action": "update", "targetName": "old-fact", "entry": TESTS},
        ),
    )
    manager = manager_for(store, provider)
    report = manager.extract_and_consolidate(history.conversation(4), why="session-end")
    assert (report.candidates_found, report.added, report.updated, report.skipped) == (
        2,
        ["user-prefers-vim"],
        ["old-fact"],
        [],
    )
    assert report.skipped_reason == ""
    assert [e.name for e in store.load_all()] == ["old-fact", "user-prefers-vim"]
    assert "- user-prefers-vim: 用户偏好 vim 编辑器" not in provider.requests[0].messages[0].text
    assert "- old-fact: d" in provider.requests[0].messages[0].text
    assert manager.extract_and_consolidate(history.conversation(4), why="t").skipped_reason.startswith("not enough")
    provider.assert_complete()


def test_skipped_and_unmatched_candidates_are_reported(store: MemoryStore, history: History) -> None:
    provider = ScriptedProvider(extracted(VIM, TESTS), decided({"action": "skip", "entry": VIM}))
    report = manager_for(store, provider).extract_and_consolidate(history.conversation(4), why="command")
    assert report.skipped == ["user-prefers-vim", "no-touch-tests"]
    assert report.skipped_reason == "not decided by the consolidator: no-touch-tests"
    assert store.load_all() == []


@pytest.mark.parametrize("failing_call", [0, 1])
def test_provider_failure_propagates_and_keeps_the_watermark(
    store: MemoryStore, history: History, failing_call: int
) -> None:
    answers: list[object] = [extracted(VIM), decided({"action": "add", "entry": VIM})]
    answers[failing_call] = ProviderError("overloaded", status=529)
    provider = ScriptedProvider(*answers[: failing_call + 1])  # type: ignore[arg-type]
    manager = manager_for(store, provider)
    with pytest.raises(ProviderError):
        manager.extract_and_consolidate(history.conversation(4), why="session-end")
    provider.queue(extracted(VIM), decided({"action": "add", "entry": VIM}))
    report = manager.extract_and_consolidate(history.conversation(5), why="session-end")
    assert report.added == ["user-prefers-vim"]
    assert "USER: u0" in provider.requests[-2].messages[0].text  # the failed window was retried whole


def test_disabled_memory_does_nothing(store: MemoryStore, history: History) -> None:
    provider = ScriptedProvider()
    window = history.conversation(10)
    report = manager_for(store, provider, enabled=False).extract_and_consolidate(window, why="session-end")
    assert report.skipped_reason == "memory is disabled" and provider.requests == []


def test_redactions_are_reported(make_store: Callable[..., MemoryStore], history: History) -> None:
    store = make_store(redactor=lambda text: (text.replace("hunter2", "[REDACTED]"), ["pw"] * text.count("hunter2")))
    secret = {**VIM, "content": "password hunter2"}
    provider = ScriptedProvider(extracted(secret), decided({"action": "add", "entry": secret}))
    assert manager_for(store, provider).extract_and_consolidate(history.conversation(4), why="t").redacted == 1


def test_write_entry_is_the_tools_single_write_path(store: MemoryStore, versioning: RecordingVersioning) -> None:
    manager = manager_for(store, ScriptedProvider())
    manager.write_entry(seed_vim())
    manager.write_entry(seed_vim().model_copy(update={"content": "changed"}))
    assert store.get("user-prefers-vim").content == "changed"  # type: ignore[union-attr]
    assert versioning.messages == ["tool: add user-prefers-vim", "tool: update user-prefers-vim"]
    assert manager.delete_entry("user-prefers-vim") is True
