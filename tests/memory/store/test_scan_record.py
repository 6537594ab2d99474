"""The scan record (store/scan_record.py): a new process starts from what an earlier one read, and still answers
exactly as a full parse would — a file read within a tick of its change is read again, a record written by other
code or for other folders is ignored, a damaged one costs a parse, and the record is private and redacted."""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

from memory_helpers import seed_api_style, seed_vim

from catcode.memory.store.entry_file import render
from catcode.memory.store.models import MemoryEntry, MemoryType, Scope
from catcode.memory.store.scan_record import ScanRecord, code_stamp
from catcode.memory.store.store import MemoryStore
from catcode.redact import redact

TOKEN = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
LATER = 5_000_000_000  # a read this long after a change is settled on any filesystem


def later() -> int:
    return time.time_ns() + LATER


def process(root: Path, *, clock: Callable[[], int] = later, record: Path | None = None) -> MemoryStore:
    """A store as a new catcode process builds it (``record``: None → ``root/record.json``)."""
    return MemoryStore(
        root / "users" / "u1",
        root / "projects" / "p1",
        lock_path=root / ".lock",
        redactor=redact,
        scan_record=record or root / "record.json",
        clock=clock,
    )


def full_parse(root: Path) -> MemoryStore:
    return MemoryStore(root / "users" / "u1", root / "projects" / "p1", lock_path=root / ".lock", redactor=redact)


def hand_write(root: Path, entry: MemoryEntry) -> Path:
    folder = root / ("users/u1" if entry.type.scope is Scope.USER else "projects/p1")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{entry.name}.md"
    path.write_text(render(entry), encoding="utf-8")
    return path


def recorded(root: Path) -> set[str]:
    dirs = {Scope.USER: root / "users" / "u1", Scope.PROJECT: root / "projects" / "p1"}
    held = ScanRecord(root / "record.json", {s: d.absolute() for s, d in dirs.items()}, code_stamp(redact)).load()
    return {name for files in held.values() for name in files}


def test_a_file_read_within_a_tick_of_its_change_is_read_again_by_the_next_process(tmp_path: Path) -> None:
    """A second change in the same tick could keep the key, so only a file read a tick after its change is kept."""
    hand_write(tmp_path, seed_vim())
    hand_write(tmp_path, seed_api_style())
    assert process(tmp_path, clock=time.time_ns).load_all() == [seed_api_style(), seed_vim()]
    assert recorded(tmp_path) == set()  # both were read within a tick of being written

    assert process(tmp_path).load_all() == [seed_api_style(), seed_vim()]
    assert recorded(tmp_path) == {"user-prefers-vim.md", "project-api-style.md"}


def test_a_memory_written_by_a_process_and_changed_in_place_keeping_its_mtime_is_seen(tmp_path: Path) -> None:
    path = hand_write(tmp_path, seed_vim())
    assert process(tmp_path).load_all() == [seed_vim()]
    before = path.stat()
    changed = seed_vim().model_copy(update={"content": seed_vim().content.replace("vim", "vi ")})
    with open(path, "r+b") as fh:  # in place: same inode, same size, the mtime put back (cp -p, touch -r)
        fh.write(render(changed).encode("utf-8"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)
    assert process(tmp_path).load_all() == [changed] == full_parse(tmp_path).load_all()


def test_a_record_made_by_other_code_or_for_other_folders_is_never_trusted(tmp_path: Path) -> None:
    """An older catcode (other redaction rules) may have recorded a secret as it was: its record is ignored."""
    entry = seed_vim().model_copy(update={"content": f"push with {TOKEN}"})
    hand_write(tmp_path, entry)
    assert TOKEN not in process(tmp_path).load_all()[0].content
    record = tmp_path / "record.json"
    data = json.loads(record.read_text(encoding="utf-8"))
    data["files"]["user"]["user-prefers-vim.md"][2]["content"] = entry.content  # as a reader without the rule kept it
    record.write_text(json.dumps(data), encoding="utf-8")
    assert TOKEN in process(tmp_path).load_all()[0].content  # the control: the same code trusts its own record
    for field, value in (("code", [*data["code"][:-1], [1, 2]]), ("dirs", {"user": "/elsewhere", "project": "/x"})):
        record.write_text(json.dumps({**data, field: value}), encoding="utf-8")
        (shown,) = process(tmp_path).load_all()
        assert TOKEN not in shown.content and "[REDACTED:" in shown.content


def test_a_damaged_record_costs_a_parse_and_is_replaced(tmp_path: Path) -> None:
    hand_write(tmp_path, seed_vim())
    (tmp_path / "record.json").write_bytes(b'{"format": 1, "files": [[')
    assert process(tmp_path).load_all() == [seed_vim()]
    assert recorded(tmp_path) == {"user-prefers-vim.md"}


def test_the_record_is_private_and_holds_only_redacted_text(tmp_path: Path) -> None:
    hand_write(tmp_path, seed_vim().model_copy(update={"description": f"token {TOKEN}"}))
    hand_write(tmp_path, seed_api_style()).with_name("broken.md").write_text("no front matter", encoding="utf-8")
    record = tmp_path / "cache" / "memory" / "p1-u1.json"
    store = process(tmp_path, record=record)
    assert [p.path.name for p in store.problems()] == ["broken.md"] and len(store.load_all()) == 2
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert stat.S_IMODE(record.parent.stat().st_mode) == stat.S_IMODE(record.parent.parent.stat().st_mode) == 0o700
    assert TOKEN not in record.read_text(encoding="utf-8")
    again = process(tmp_path, record=record)
    assert again.load_all() == store.load_all() and TOKEN not in again.load_all()[1].description
    assert again.problems() == store.problems()


def test_memories_written_through_the_store_are_seen_by_the_next_process(tmp_path: Path) -> None:
    writer = process(tmp_path)
    writer.update(seed_vim(), why="save")
    writer.update(seed_api_style(), why="save")
    assert process(tmp_path).load_all() == full_parse(tmp_path).load_all()
    writer.delete("user-prefers-vim")
    writer.update(MemoryEntry(name="third-one", description="d", type=MemoryType.USER, content="c"), why="save")
    reader = process(tmp_path)
    assert [e.name for e in reader.load_all()] == ["project-api-style", "third-one"]
    assert reader.load_all() == full_parse(tmp_path).load_all()
