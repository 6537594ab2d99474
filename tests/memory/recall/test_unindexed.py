"""``recall/unindexed.py``: the search of memories the fact index does not hold yet — the words looked for, and a
scratch index whose scores mean what the fact index's do (one matching memory among many is a strong match)."""

from __future__ import annotations

from contextlib import closing

from catcode.memory.recall.unindexed import scan_words, search_unindexed
from catcode.memory.store.models import MemoryEntry, MemoryType
from catcode.memory.store.store import MemoryStore
from catcode.settings.memory import MemoryConfig


def test_the_words_looked_for_are_the_terms_long_ones_cut_and_chinese_as_the_index_pairs_it() -> None:
    assert scan_words("How long is the shortest wait between payment attempts?") == [
        "long", "short", "wait", "paym", "attem",
    ]  # fmt: skip
    assert scan_words("What did we set MAX_RETRIES to?") == ["set", "max_retr"]
    assert scan_words("should I force-push?") == ["force", "push"]
    assert "求婚" in scan_words("Haoran在哪里求婚的？")


def test_one_matching_memory_among_many_scores_as_a_strong_match(store: MemoryStore) -> None:
    for i in range(40):
        store.update(MemoryEntry(name=f"note-{i:02d}", description=f"Note {i}", type=MemoryType.PROJECT,
                                 content=f"The team lunch {i} was at noon."))  # fmt: skip
    store.update(MemoryEntry(name="deploy-freeze", description="When deploys stop", type=MemoryType.PROJECT,
                             content="Deploys freeze from Thursday noon to Monday morning."))  # fmt: skip
    question = "when does the deploy freeze start?"
    with closing(search_unindexed(store, question)) as index:
        hits = index.search(question, 5)
    assert hits[0].source_id == "deploy-freeze" and hits[0].score >= MemoryConfig().auto_recall_min_score
