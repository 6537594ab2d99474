"""``MemoryStore.holding`` (``store/scan.py``): a search of the catalogues without the fact index — what holds the
rarest of the words first, never a memory another one hides, the words taken as they are typed."""

from __future__ import annotations

from datetime import date

from catcode.memory.store.models import MemoryEntry, MemoryType
from catcode.memory.store.store import MemoryStore


def entry(name: str, content: str, kind: MemoryType = MemoryType.PROJECT, day: int = 1) -> MemoryEntry:
    return MemoryEntry(name=name, description=f"About {name}", type=kind, content=content,
                       updated_at=date(2026, 3, day))  # fmt: skip


def test_the_memory_holding_the_rarest_words_comes_first(store: MemoryStore) -> None:
    for i in range(12):  # "set" is in every one of them: it says little
        store.update(entry(f"note-{i:02d}", f"We set the table for lunch {i}.", day=1 + i))
    store.update(entry("retries", "Changed `MAX_RETRIES` to 8 after the outage."))
    found = [e.name for e, _ in store.holding(["set", "max_retr"], 5)]
    assert found[0] == "retries" and all(name.startswith("note-") for name in found[1:]) and len(found) == 5
    assert store.holding(["nothing-holds-this"], 5) == []


def test_like_wildcards_in_a_word_are_taken_as_typed(store: MemoryStore) -> None:
    store.update(entry("percent", "The discount is 50% on Mondays."))
    store.update(entry("plain", "The discount is 50 euros on Mondays."))
    store.update(entry("snake", "Use max_size for the buffer."))
    store.update(entry("camel", "Use maxXsize for the buffer."))
    assert [e.name for e, _ in store.holding(["50%"], 5)] == ["percent"]
    assert [e.name for e, _ in store.holding(["max_size"], 5)] == ["snake"]


def test_a_user_memory_hidden_by_a_project_memory_of_its_name_is_not_found(store: MemoryStore) -> None:
    store.update(entry("editor", "The user edits with vim.", MemoryType.USER))
    store.update(entry("build", "Builds run with make.", MemoryType.PROJECT))
    found = store.holding(["vim", "make"], 5)
    assert sorted((e.name, s.value) for e, s in found) == [("build", "project"), ("editor", "user")]
