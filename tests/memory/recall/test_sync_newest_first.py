"""A sync of every memory streamed newest first (``FactsIndex.sync_newest_first``: the first index of a large store,
never held whole) writes exactly the rows ``FactsIndex.sync`` of the same memories writes — the same sources with the
same ids, the same facts with the same ids, the same documents — from an empty index or one already holding some of
them (changed, removed), in batches of any size; and ``MemoryStore.newest_first`` is the exact reverse of the list
order sorted by day, which is the order ``sync`` inserts in."""

from __future__ import annotations

import tempfile
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catcode.memory.recall import facts_write
from catcode.memory.recall.facts import FactsIndex
from catcode.memory.recall.facts_schema import FactSource
from catcode.memory.recall.sources import memory_source
from catcode.memory.store.models import MemoryEntry, MemoryType, Scope
from catcode.memory.store.store import MemoryStore

WORDS = ("parser", "cache", "deploy", "vim", "kotlin", "billing", "缓存", "retry.", "Fix it.")
DAYS = ("2026-01-01", "2026-01-02", "2026-03-09")
TABLES = (
    "SELECT * FROM sources ORDER BY id",
    "SELECT * FROM facts ORDER BY id",
    "SELECT rowid, title, body, context FROM docs_word ORDER BY rowid",
    "SELECT key, value FROM meta ORDER BY key",
)
QUESTIONS = ("vim", "parser cache", "缓存", "fix", "deploy billing")

source = st.builds(
    lambda n, day, words, user: FactSource(
        f"note-{n}", "memory", day, " ".join(words), "user" if user else "project", title=f"note {n}"
    ),
    st.integers(0, 30),
    st.sampled_from(DAYS),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=12),
    st.booleans(),
)
sources = st.lists(source, max_size=25, unique_by=lambda s: s.source_id)


def rows(index: FactsIndex) -> list[list[tuple[object, ...]]]:
    conn = index._conn
    assert conn is not None
    return [conn.execute(query).fetchall() for query in TABLES]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=sources, after=sources, batch=st.integers(1, 7))
def test_streamed_newest_first_writes_what_sync_writes(
    before: list[FactSource], after: list[FactSource], batch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(facts_write, "INSERT_BATCH", batch)
    with tempfile.TemporaryDirectory() as tmp:
        one, two = FactsIndex(Path(tmp) / "one.db"), FactsIndex(Path(tmp) / "two.db")
        with closing(one), closing(two):
            for index in (one, two):
                index.sync(before, kinds={"memory"})
            newest_first = sorted(after, key=lambda s: s.date)[::-1]  # ``sync`` inserts them stably sorted by day
            assert one.sync(after, kinds={"memory"}) == two.sync_newest_first(lambda: newest_first, kinds={"memory"})
            assert rows(one) == rows(two)
            for question in QUESTIONS:
                assert one.search(question, 10) == two.search(question, 10)
            assert two.sync_newest_first(lambda: newest_first, kinds={"memory"}).added == 0


def test_the_store_gives_every_memory_newest_first_in_the_order_sync_inserts_them_reversed(tmp_path: Path) -> None:
    store = MemoryStore(
        tmp_path / "user", tmp_path / "project", lock_path=tmp_path / "lock", catalog_dir=tmp_path / "c"
    )
    days = ["2026-01-02", "2026-01-01", "2026-01-02", "2026-03-09", "2026-01-01"]
    for n, day in enumerate(days):
        for kind in (MemoryType.USER, MemoryType.PROJECT):
            entry = MemoryEntry(name=f"{kind.value}-note-{n}", description=f"note {n}", type=kind, content="x")
            store.update(entry, why="test")
            path = store.path_of(entry.name)
            assert path is not None
            text = path.read_text().replace(str(entry.updated_at), day)
            path.write_text(text)
    shadowed = MemoryEntry(name="user-note-1", description="again", type=MemoryType.PROJECT, content="y")
    (tmp_path / "project" / "user-note-1.md").write_text(
        (tmp_path / "user" / "user-note-1.md").read_text().replace("type: user", "type: project")
    )
    store.verify()
    listed = [memory_source(e, s) for e, s in store.iter_listed()]
    streamed = [memory_source(e, s) for e, s in store.newest_first(chunk=2)]
    assert streamed == sorted(listed, key=lambda s: s.date)[::-1]
    assert len(streamed) == 10 and {s.scope for s in streamed} == {Scope.USER.value, Scope.PROJECT.value}
    assert shadowed.name in {s.source_id for s in streamed}


def test_a_lean_index_writes_the_same_rows_and_never_maps_the_file(tmp_path: Path) -> None:
    """The upkeep's index (``lean``: it writes rather than searches) holds what a search's holds, and stays without a
    memory map through a streamed sync — whose own switch to lean settings must not hand it one back after."""
    notes = [FactSource(f"note-{n}", "memory", DAYS[n % 3], f"{WORDS[n % 9]} note {n}", "project") for n in range(30)]
    searched, lean = FactsIndex(tmp_path / "one.db"), FactsIndex(tmp_path / "two.db", lean=True)
    with closing(searched), closing(lean):
        searched.sync(notes, kinds={"memory"})
        lean.sync_newest_first(lambda: sorted(notes, key=lambda s: s.date)[::-1], kinds={"memory"})
        assert rows(searched) == rows(lean)
        assert [searched.search(q, 10) for q in QUESTIONS] == [lean.search(q, 10) for q in QUESTIONS]
        mapped = [index._conn.execute("PRAGMA mmap_size").fetchone()[0] for index in (searched, lean) if index._conn]
        assert mapped[0] > 0 and mapped[1] == 0
