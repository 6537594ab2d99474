"""MemoryStore against the disk: bad files, index repair, other processes, the fingerprint."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from memory_helpers import RecordingVersioning, seed_api_style, seed_vim
from structlog.testing import capture_logs

from catcode.errors import MemoryStoreError
from catcode.fsutil import atomic_write_text
from catcode.memory.store.entry_file import render
from catcode.memory.store.models import CandidateMemory, MemoryAction, MemoryEntry, MemoryOperation, MemoryType, Scope
from catcode.memory.store.store import MemoryStore
from tests.slowness import bound

GOOD = render(seed_vim())
BAD_FILES = {
    "no-front-matter.md": b"just text\n",
    "not-utf8.md": b"---\nname: not-utf8\n\xff\xfe\n---\n",
    "missing-field.md": b"---\nname: missing-field\nmetadata:\n  type: user\n---\nbody\n",
    "unknown-type.md": GOOD.replace("user-prefers-vim", "unknown-type").replace("type: user", "type: boss").encode(),
    "too-big.md": GOOD.replace("user-prefers-vim", "too-big").encode() + b"x" * 300_000,
    "other-name.md": GOOD.encode(),
    "Bad_Name.md": GOOD.encode(),
}


def plant_bad_files(folder: Path, outside: Path) -> dict[str, bytes]:
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in BAD_FILES.items():
        (folder / name).write_bytes(data)
    (outside / "secret.md").write_text(GOOD.replace("user-prefers-vim", "escape"))
    (folder / "escape.md").symlink_to(outside / "secret.md")
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_bad_files_are_skipped_with_one_warning_each_and_never_touched(store: MemoryStore, tmp_path: Path) -> None:
    folder = store.dirs[MemoryType.USER.scope]
    before = plant_bad_files(folder, tmp_path)
    with capture_logs() as logs:
        assert store.load_all() == []
        store.update(seed_vim())
        store.load_all()
    warned = sorted(Path(e["path"]).name for e in logs if e["event"] == "memory_file_skipped")
    assert warned == sorted([*BAD_FILES, "escape.md"])
    reasons = {p.path.name: p.reason for p in store.problems()}
    assert reasons["not-utf8.md"].startswith("not UTF-8")
    assert reasons["unknown-type.md"].startswith("unknown type")
    assert reasons["too-big.md"].startswith("larger than 256 KB")
    assert reasons["escape.md"] == "a symlink pointing outside the memory folder"
    assert "does not match the file name" in reasons["other-name.md"]
    assert "not a valid memory name" in reasons["Bad_Name.md"]
    assert {n: (folder / n).read_bytes() for n in before} == before
    assert [e.name for e in store.load_all()] == ["user-prefers-vim"]


def test_a_bad_file_is_never_overwritten(store: MemoryStore) -> None:
    folder = store.dirs[MemoryType.USER.scope]
    folder.mkdir(parents=True)
    (folder / "broken.md").write_bytes(b"broken")
    with pytest.raises(MemoryStoreError, match="cannot be read"):
        store.update(MemoryEntry(name="broken", description="d", type=MemoryType.USER, content="c"))
    op = MemoryOperation(
        action=MemoryAction.ADD, entry=CandidateMemory(type="user", name="broken", description="d", content="c")
    )
    assert store.apply([op], why="t").skipped == 1
    assert store.delete("broken") is False
    assert (folder / "broken.md").read_bytes() == b"broken"


def test_missing_or_stale_index_is_rebuilt_by_the_next_start_or_write_never_by_a_read(
    store: MemoryStore, versioning: RecordingVersioning
) -> None:
    store.update(seed_vim())
    index = store.dirs[MemoryType.USER.scope] / "MEMORY.md"
    expected = index.read_text()
    index.unlink()
    assert store.load_all() == [seed_vim()] and not index.exists()  # reading never writes
    store.reconcile()  # what a session start does
    assert index.read_text() == expected
    index.write_text("# Memory Index\n\n- [gone](gone.md) — stale\n")
    store.update(seed_api_style())
    assert index.read_text() == expected
    assert versioning.messages[-2:] == ["reindex: rebuild MEMORY.md", "update: add project-api-style"]


def test_hand_added_file_is_seen_at_once_and_indexed_at_the_next_start(store: MemoryStore) -> None:
    store.update(seed_vim())
    folder = store.dirs[MemoryType.PROJECT.scope]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "project-api-style.md").write_text(render(seed_api_style()))
    assert store.load_all() == [seed_api_style(), seed_vim()]
    store.reconcile()
    assert "project-api-style" in (folder / "MEMORY.md").read_text()


def test_sees_a_file_written_directly_by_another_process(store: MemoryStore) -> None:
    store.update(seed_vim())
    before = store.fingerprint()
    # Within the same clock tick as the save: the folder mtime may not move, the listing does.
    atomic_write_text(store.dirs[MemoryType.PROJECT.scope] / "project-api-style.md", render(seed_api_style()))
    assert store.fingerprint() != before
    assert store.get("project-api-style") == seed_api_style()


def test_sees_a_memory_replaced_directly_by_another_process(store: MemoryStore) -> None:
    store.update(seed_vim())
    assert store.get("user-prefers-vim") == seed_vim()
    changed = seed_vim().model_copy(update={"content": "neovim now"})
    atomic_write_text(store.dirs[MemoryType.USER.scope] / "user-prefers-vim.md", render(changed))
    assert store.get("user-prefers-vim") == changed


def test_a_change_within_one_timestamp_tick_is_still_seen(store: MemoryStore) -> None:
    store.update(seed_vim())
    assert store.get("user-prefers-vim") == seed_vim()
    folder = store.dirs[MemoryType.USER.scope]
    before = folder.stat()
    changed = seed_vim().model_copy(update={"content": "neovim now"})
    atomic_write_text(folder / "user-prefers-vim.md", render(changed))
    os.utime(folder, ns=(before.st_atime_ns, before.st_mtime_ns))  # a coarse clock: the folder mtime did not move
    assert store.get("user-prefers-vim") == changed


def test_fingerprint_is_stable_while_nothing_changes(store: MemoryStore) -> None:
    store.update(seed_vim())
    assert store.fingerprint() == store.fingerprint()
    assert store.load_all() is not store.load_all()


def test_a_second_store_sees_writes_and_keeps_them(make_store: Callable[..., MemoryStore]) -> None:
    first, second = make_store(), make_store()
    first.update(seed_vim())
    assert second.load_all() == [seed_vim()]
    second.update(seed_api_style())
    first.update(MemoryEntry(name="third-one", description="d", type=MemoryType.USER, content="c"))
    index = (first.dirs[MemoryType.USER.scope] / "MEMORY.md").read_text()
    assert "user-prefers-vim" in index and "third-one" in index
    assert [e.name for e in first.load_all()] == ["project-api-style", "third-one", "user-prefers-vim"]


def _writer(root: str, prefix: str, count: int) -> None:
    store = MemoryStore(Path(root) / "u", Path(root) / "p", lock_path=Path(root) / ".lock")
    for i in range(count):
        store.update(MemoryEntry(name=f"{prefix}-{i}", description="d", type=MemoryType.USER, content="c"))


def test_concurrent_processes_lose_no_write(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_writer, args=(str(tmp_path), p, 8)) for p in ("a", "b")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(bound(60))
        assert worker.exitcode == 0
    store = MemoryStore(tmp_path / "u", tmp_path / "p", lock_path=tmp_path / ".lock")
    assert len(store.load_all()) == 16
    assert (tmp_path / "u" / "MEMORY.md").read_text().count("\n- [") == 16
    assert not [n for n in os.listdir(tmp_path / "u") if n.startswith(".")]  # no temp file left behind


def test_saving_a_memory_whose_move_was_interrupted_leaves_one_copy(make_store: Callable[..., MemoryStore]) -> None:
    store = make_store()
    store.update(MemoryEntry(name="tool-choice", description="tools", type=MemoryType.USER, content="v1"))
    moving = store.get("tool-choice")
    atomic_write_text(store.dirs[Scope.PROJECT] / "tool-choice.md", render(moving))  # old copy not removed

    make_store().update(MemoryEntry(name="tool-choice", description="tools", type=MemoryType.USER, content="v3"))

    reopened = make_store()
    assert reopened.get("tool-choice").content == "v3"  # type: ignore[union-attr]
    assert reopened.problems() == []
    assert [p.name for d in reopened.dirs.values() for p in d.glob("tool-choice.md")] == ["tool-choice.md"]


def test_temp_files_of_killed_writes_are_removed_once_old(make_store: Callable[..., MemoryStore]) -> None:
    store = make_store()
    store.update(seed_vim())
    folder = store.dirs[seed_vim().type.scope]
    old, fresh = folder / ".user-prefers-vim.md.a1b2.tmp", folder / ".MEMORY.md.c3d4.tmp"
    for path in (old, fresh):
        path.write_text("half written", encoding="utf-8")
    os.utime(old, (1, 1))

    make_store().update(seed_api_style())  # the next start tidies up before its first write

    assert not old.exists() and fresh.exists()  # a fresh one may belong to a write in progress


def test_hand_written_files_are_recorded_once_in_chunks_and_not_again_at_the_next_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from catcode.memory.builder import build_memory_runtime
    from catcode.memory.store import writer as writer_module
    from catcode.settings.config import Paths, Settings

    paths = Paths(tmp_path / "home", tmp_path / "proj", "proj-0123abcd", tmp_path / "memory", "tester")
    paths.project_memory.mkdir(parents=True)
    for n in range(12):
        note = MemoryEntry(name=f"note-{n}", description=f"note {n}", type=MemoryType.PROJECT, content=f"text {n}")
        (paths.project_memory / f"{note.name}.md").write_text(render(note), encoding="utf-8")
    first = build_memory_runtime(Settings(), paths)
    if not first.git.available:
        pytest.skip("git is not installed")
    monkeypatch.setattr(writer_module.WritePath.reconcile, "__defaults__", (5,))  # 5 files a chunk
    assert first.store.reconcile() is not None
    recorded = first.git.log(100)
    assert [c.subject.split(":")[0] for c in recorded[:3]].count("recover") == 3  # 12 files: 3 chunks
    assert first.git.uncommitted([paths.project_memory]) == []
    with capture_logs() as logs:
        assert build_memory_runtime(Settings(), paths).store.reconcile() is None  # the next start records nothing
    assert first.git.log(100) == recorded
    assert not [e for e in logs if e["event"] == "memory_leftovers_recorded"]
