"""What the memory pipeline is shown of memory (memory/known.py): the memories the session's text could touch and
the newest of each scope — never the whole store."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from catcode.memory.builder import build_memory_runtime, build_recall
from catcode.memory.known import NEWEST, PER_TEXT, RelatedMemories
from catcode.memory.store.entry_file import render
from catcode.memory.store.models import MemoryEntry, MemoryType
from catcode.settings.config import Paths, Settings


def test_the_extractor_is_shown_what_the_text_could_touch_not_every_memory(tmp_path: Path) -> None:
    paths = Paths(tmp_path / "home", tmp_path / "proj", "proj-0123abcd", tmp_path / "memory", "tester")
    paths.project_memory.mkdir(parents=True)
    old, new = date(2025, 1, 1), date(2026, 11, 30)
    for n in range(300):
        entry = MemoryEntry(name=f"note-{n}", description=f"note {n} about widgets", type=MemoryType.PROJECT,
                            content=f"widget fact {n}", created_at=old, updated_at=new if n < 30 else old)  # fmt: skip
        (paths.project_memory / f"{entry.name}.md").write_text(render(entry), encoding="utf-8")
    kotlin = MemoryEntry(name="kotlin-naming", description="kotlin class naming rules", type=MemoryType.PROJECT,
                         content="Kotlin classes use PascalCase.", created_at=old, updated_at=old)  # fmt: skip
    (paths.project_memory / "kotlin-naming.md").write_text(render(kotlin), encoding="utf-8")
    runtime = build_memory_runtime(Settings(), paths)
    with build_recall(runtime) as recall:
        shown = RelatedMemories(recall, runtime.store)(["how should I name this kotlin class?"])
    names = [e.name for e in shown]
    assert "kotlin-naming" in names
    assert len(shown) <= NEWEST * 2 + PER_TEXT and len(shown) < 301
    notes = [int(n.removeprefix("note-")) for n in names if n.startswith("note-")]
    assert len(notes) == NEWEST and max(notes) < 30  # the newest of the scope: just learned, perhaps not indexed
