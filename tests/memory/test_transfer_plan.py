"""Issue 24 §4, the import plan as a property: whatever the store holds and whatever an import brings, with the
clashes renamed (``--yes``) or merged, no existing memory loses its text and every imported text is kept; one batch
is one recorded change."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catcode.memory.store.models import MemoryEntry, MemoryType
from catcode.memory.store.store import MemoryStore
from catcode.memory.transfer.items import ImportItem
from catcode.memory.transfer.plan import apply_plan, make_plan
from tests.memory.memory_helpers import RecordingVersioning

NAMES = st.sampled_from(["style", "build", "deploy", "prefers-pnpm", "review"])
TEXTS = st.text(alphabet="abc xyz.", min_size=1, max_size=30).map(str.strip).filter(bool)
TYPES = st.sampled_from(list(MemoryType))


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    existing=st.dictionaries(NAMES, st.tuples(TYPES, TEXTS), max_size=4),
    incoming=st.lists(st.tuples(NAMES, TYPES, TEXTS), min_size=1, max_size=6),
    merge=st.booleans(),
)
def test_nothing_is_lost_or_replaced(
    existing: dict[str, tuple[MemoryType, str]], incoming: list[tuple[str, MemoryType, str]], merge: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        versioning = RecordingVersioning()
        store = MemoryStore(root / "users" / "u", root / "projects" / "p", lock_path=root / ".lock",
                            versioning=versioning)  # fmt: skip
        for name, (kind, text) in existing.items():
            store.update(MemoryEntry(name=name, description=name, type=kind, content=text), why="seed")
        before = {e.name: e.content for e in store.load_all()}
        commits = len(versioning.commits)
        items = [ImportItem(name, f"{name} imported", kind, text, "sample") for name, kind, text in incoming]
        plan = make_plan(store, "claude", items, [], lambda step: "merge" if merge else "rename")
        counts = apply_plan(store, plan)
        after = {e.name: e.content for e in store.load_all()}
        for name, text in before.items():
            assert after[name].startswith(text)  # kept, or the imported text added after it
            if not merge:
                assert after[name] == text
        for item in items:
            assert any(item.content in content for content in after.values())
        assert len(versioning.commits) - commits == (1 if plan.writes else 0)
        assert counts.added + counts.updated == len(plan.writes)
