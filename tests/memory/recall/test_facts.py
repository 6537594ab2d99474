"""The FTS5 fact index: fact splitting, CJK and code-identifier recall, hostile queries, ranking, sync,
incremental updates, automatic rebuild after loss or corruption, freshness fingerprints."""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catcode.memory.recall.facts import FactsIndex
from catcode.memory.recall.facts_schema import FactSource, Hit, SyncResult
from catcode.memory.recall.fts_query import split_facts
from tests.slowness import bound

DATA = Path(__file__).parents[2] / "data" / "facts"

VIM = FactSource("user-prefers-vim", "memory", "2026-08-06", "用户偏好 vim 作为编辑器，配置在 ~/.vimrc。", "user")
CODE = FactSource(
    "code-notes",
    "memory",
    "2026-08-01",
    "- The UserService class owns sessions.\n"
    "- Database access goes through user_service helpers.\n"
    "- Call `get_token` before any request.\n"
    "- The engine is written in c++ for speed.\n"
    "- Join paths with os.path.join, never string concatenation.\n"
    "- The GUI toolkit is Qt.",
)
DAILY = FactSource("daily/2026-11-30", "daily", "2026-11-30", "Fixed the café bug. Upgraded to Python 3.12 today.")
NOISE = [
    FactSource(f"noise-{i}", "memory", "2026-01-01", f"Note {i}: the user service was slow on day {i}. We use C a lot.")
    for i in range(12)
]


@pytest.fixture
def index(tmp_path: Path) -> FactsIndex:
    with closing(FactsIndex(tmp_path / "facts.db")) as idx:
        idx.sync([VIM, CODE, DAILY, *NOISE])
        yield idx


def ids(hits: list[Hit]) -> list[str]:
    return [h.source_id for h in hits]


# -- split_facts ---------------------------------------------------------------------------------------------


def test_split_bullets_and_numbered_lines_are_one_fact_each() -> None:
    text = "- one. Still one.\n* two\n  wrapped line\n+ three\n1. four\n2) five\n- [x] six"
    assert split_facts(text) == ["one. Still one.", "two wrapped line", "three", "four", "five", "six"]


def test_split_prose_into_sentences_without_breaking_abbreviations_versions_or_file_names() -> None:
    text = "Use an editor, e.g. vim. Then run setup.py. SQLite 3.40.1 has trigram! Does it work? Yes i.e. fine."
    assert split_facts(text) == [
        "Use an editor, e.g. vim.",
        "Then run setup.py.",
        "SQLite 3.40.1 has trigram!",
        "Does it work?",
        "Yes i.e. fine.",
    ]


def test_split_cjk_sentences_and_wrapped_cjk_lines() -> None:
    text = "用户偏好 vim 编辑器。配置在 ~/.vimrc！\n是否使用\n插件？是的"
    assert split_facts(text) == ["用户偏好 vim 编辑器。", "配置在 ~/.vimrc！", "是否使用插件？", "是的"]


def test_split_drops_headings_rules_front_matter_and_duplicates() -> None:
    text = "---\nname: x\n---\n# Title\n\n## Section\nBody text.\n\n---\n***\n- Body text.\n"
    assert split_facts(text) == ["Body text."]


def test_split_keeps_code_lines_and_caps_very_long_facts() -> None:
    assert split_facts("Run:\n```\npytest -q\n```") == ["Run:", "pytest -q"]
    long_fact = split_facts("word " * 500)[0]
    assert len(long_fact) <= 400 and long_fact.endswith("…")
    assert split_facts("") == [] and split_facts("   \n\n") == []


# -- recall ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["偏好", "用户", "编辑器", "用户偏好", "偏好 vim", "vimrc"])
def test_cjk_queries_of_two_and_more_characters(index: FactsIndex, query: str) -> None:
    hits = index.search(query)
    assert ids(hits)[:1] == ["user-prefers-vim"]
    assert hits[0].label == "memory user-prefers-vim" and hits[0].date == "2026-08-06" and hits[0].scope == "user"


def test_cjk_query_not_in_the_index_finds_nothing(index: FactsIndex) -> None:
    assert index.search("数据库") == []


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("UserService", "The UserService class owns sessions."),
        ("UserServ", "The UserService class owns sessions."),
        ("user_service", "Database access goes through user_service helpers."),
        ("get_token", "Call `get_token` before any request."),
        ("`get_token`", "Call `get_token` before any request."),
        ("token", "Call `get_token` before any request."),
        ("os.path.join", "Join paths with os.path.join, never string concatenation."),
        ("c++", "The engine is written in c++ for speed."),
        ("gui", "The GUI toolkit is Qt."),
    ],
)
def test_code_identifiers_are_found_first(index: FactsIndex, query: str, expected: str) -> None:
    assert index.search(query)[0].snippet == expected


def test_snake_case_is_one_word(index: FactsIndex) -> None:
    snippets = [h.snippet for h in index.search("user_service")]
    assert snippets == ["Database access goes through user_service helpers."]


def test_diacritics_short_substrings_and_versions(index: FactsIndex) -> None:
    assert ids(index.search("cafe")) == ["daily/2026-11-30"]
    assert index.search("3.12")[0].snippet == "Upgraded to Python 3.12 today."
    assert index.search("Qt")[0].snippet == "The GUI toolkit is Qt."
    assert index.search("UI")[0].snippet == "The GUI toolkit is Qt."  # under 3 characters: the bounded scan


def test_ranking_puts_the_exact_fact_first_among_distractors(tmp_path: Path) -> None:
    distractors = [
        "The deploy of the billing service failed twice last week because the script timed out on staging.",
        "Every deploy must be announced in the team channel.",
        "The lint script runs before each commit.",
        "Deploy windows are Tuesday and Thursday; a script checks the calendar, the lead approves any exception.",
    ]
    sources = [FactSource(f"d{i}", "memory", "2026-01-01", t) for i, t in enumerate(distractors)]
    sources.append(FactSource("target", "memory", "2026-01-02", "The deploy script lives in ops/deploy.sh."))
    with closing(FactsIndex(tmp_path / "facts.db")) as idx:
        idx.sync(sources)
        assert ids(idx.search("deploy script"))[0] == "target"
        assert ids(idx.search("where does the deploy script live?"))[0] == "target"
        assert ids(idx.search("ops/deploy.sh"))[0] == "target"


def test_or_fallback_when_no_fact_has_every_word(index: FactsIndex) -> None:
    assert "user-prefers-vim" in ids(index.search("vim emacs nano"))


def test_results_are_bounded_and_snippets_short(tmp_path: Path) -> None:
    text = "x " * 150 + "the needle is here " + "y " * 150
    with closing(FactsIndex(tmp_path / "facts.db")) as idx:
        facts = [FactSource(f"m{i}", "memory", "2026-01-01", f"Fact {i} about gardens.") for i in range(30)]
        idx.sync([*facts, FactSource("long", "memory", "2026-01-01", text)])
        assert len(idx.search("gardens")) == 10 and len(idx.search("gardens", limit=3)) == 3
        assert idx.search("gardens", limit=0) == []
        snippet = idx.search("needle")[0].snippet
        assert "needle" in snippet and len(snippet) <= 200 and snippet.startswith("…")


# -- hostile input ---------------------------------------------------------------------------------------------


def hostile_queries() -> list[str]:
    lines = (DATA / "hostile_queries.txt").read_text(encoding="utf-8").split("\n")
    return [*lines, "x" * 10_000, "vim " * 3000, "a\x00b", "line\nbreak", "\ud800 lone surrogate", "\t\r\n", "   "]


def test_the_hostile_corpus_is_large_enough() -> None:
    assert len(set(hostile_queries())) >= 30


@pytest.mark.parametrize("query", hostile_queries())
def test_hostile_queries_never_raise(index: FactsIndex, query: str) -> None:
    hits = index.search(query)
    assert isinstance(hits, list) and all(isinstance(h, Hit) and len(h.snippet) <= 200 for h in hits)


@pytest.mark.parametrize("query", ["", "   ", "\n\t", '"', "*", "^", ":", "()", "AND"])
def test_empty_or_operator_only_queries_return_nothing_or_plain_matches(index: FactsIndex, query: str) -> None:
    assert index.search(query) == []


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=200))
def test_search_never_raises_on_arbitrary_text(index: FactsIndex, query: str) -> None:
    assert isinstance(index.search(query), list)


# -- keeping in step -------------------------------------------------------------------------------------------


def test_sync_adds_changes_and_deletes_sources(tmp_path: Path) -> None:
    a = FactSource("a", "memory", "2026-01-01", "Alpha uses postgres.")
    b = FactSource("b", "memory", "2026-01-01", "Beta uses redis.")
    with closing(FactsIndex(tmp_path / "facts.db")) as idx:
        assert idx.sync([a, b]) == SyncResult(added=2)
        assert idx.sync([a, b]) == SyncResult()
        a2 = FactSource("a", "memory", "2026-01-02", "Alpha moved to mysql.")
        c = FactSource("c", "weekly", "2026-01-05", "Gamma uses sqlite.")
        assert idx.sync([a2, c]) == SyncResult(added=1, changed=1, removed=1)
        assert idx.search("postgres") == [] and idx.search("redis") == []
        assert idx.search("mysql")[0].date == "2026-01-02"
        assert ids(idx.search("sqlite")) == ["c"] and idx.count() == 2
    assert_fts_consistent(tmp_path / "facts.db")


def assert_fts_consistent(db: Path) -> None:
    """FTS5's own check: the indexes agree with the facts table (raises SQLITE_CORRUPT_VTAB otherwise)."""
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("INSERT INTO facts_tri(facts_tri) VALUES ('integrity-check')")
        conn.execute("INSERT INTO facts_word(facts_word) VALUES ('integrity-check')")
        word_rows = conn.execute("SELECT count(*) FROM facts_word_docsize").fetchone()[0]
        assert word_rows == conn.execute("SELECT count(*) FROM facts").fetchone()[0]


def test_unknown_kind_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown fact source kind"):
        FactSource("x", "diary", "2026-01-01", "text")


def test_usable_from_another_thread(index: FactsIndex) -> None:
    results: list[list[str]] = []
    workers = [threading.Thread(target=lambda: results.append(ids(index.search("偏好")))) for _ in range(4)]
    # The writer keeps every source and adds one: whenever a reader runs, its answer is the same.
    added = FactSource("t", "memory", "2026-01-01", "Threads.")
    writer = threading.Thread(target=lambda: index.sync([VIM, CODE, DAILY, *NOISE, added]))
    for thread in [*workers, writer]:
        thread.start()
    for thread in [*workers, writer]:
        thread.join(timeout=bound(30))
    assert results == [["user-prefers-vim"]] * 4 and ids(index.search("threads")) == ["t"]


# -- freshness and rebuild -------------------------------------------------------------------------------------


def test_marks_survive_reopen(tmp_path: Path) -> None:
    with closing(FactsIndex(tmp_path / "facts.db")) as idx:
        assert idx.mark("synced") is None
        idx.sync([VIM])
        idx.set_mark("synced", "fp-1")
        assert idx.mark("synced") == "fp-1"
    with closing(FactsIndex(tmp_path / "facts.db")) as idx:
        assert idx.mark("synced") == "fp-1" and ids(idx.search("vim")) == ["user-prefers-vim"]


def test_an_update_touches_only_the_sources_it_is_given(tmp_path: Path) -> None:
    """What changed since the last sync, when the caller knows it: the other sources are neither read nor removed."""
    with closing(FactsIndex(tmp_path / "facts.db")) as idx:
        idx.sync([VIM, CODE])
        changed = FactSource(VIM.source_id, VIM.kind, VIM.date, "User prefers helix now.", VIM.scope, title=VIM.title)
        result = idx.update([changed], removed=[])
        assert (result.added, result.changed, result.removed) == (0, 1, 0)
        assert ids(idx.search("helix")) == ["user-prefers-vim"] and ids(idx.search("UserService")) == [CODE.source_id]
        assert idx.update([changed], removed=[CODE.source_id]).removed == 1
        assert idx.search("UserService") == [] and idx.update([], removed=["never-there"]).removed == 0


def test_rebuild_after_facts_db_is_deleted(tmp_path: Path) -> None:
    db = tmp_path / "facts.db"
    with closing(FactsIndex(db)) as idx:
        idx.sync([VIM, CODE])
        idx.set_mark("synced", "fp")
    for path in tmp_path.glob("facts.db*"):
        path.unlink()
    with closing(FactsIndex(db)) as idx:
        assert idx.mark("synced") is None and idx.search("vim") == []
        idx.sync([VIM, CODE])
        assert ids(idx.search("vim")) == ["user-prefers-vim"]


def test_rebuild_after_facts_db_is_replaced_by_garbage(tmp_path: Path) -> None:
    db = tmp_path / "facts.db"
    with closing(FactsIndex(db)) as idx:
        idx.sync([VIM])
        idx.set_mark("synced", "fp")
    db.write_bytes(b"this is not a database at all \x00\xff" * 400)
    with closing(FactsIndex(db)) as idx:
        assert idx.mark("synced") is None and idx.count() == 0
        idx.sync([VIM])
        assert ids(idx.search("偏好")) == ["user-prefers-vim"]
    assert len(list(tmp_path.glob("facts.db.corrupt-*"))) == 1


def test_rebuild_when_pages_inside_the_database_are_garbage(tmp_path: Path) -> None:
    db = tmp_path / "facts.db"
    with closing(FactsIndex(db)) as idx:
        idx.sync([FactSource(f"m{i}", "memory", "2026-01-01", f"Fact number {i} about kittens.") for i in range(300)])
    with closing(sqlite3.connect(db)) as conn:  # fold the WAL into the main file: the damage below is what is read
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(db.read_bytes())
    page = 4096
    data[page:] = bytes((i * 7 + 13) % 256 for i in range(len(data) - page))  # keep the header, trash the rest
    db.write_bytes(bytes(data))
    with closing(FactsIndex(db)) as idx:
        idx.search("kittens")  # either open() or this search notices the damage; neither raises
        idx.sync([VIM])
        assert ids(idx.search("偏好")) == ["user-prefers-vim"] and idx.count() == 1
    assert len(list(tmp_path.glob("facts.db.corrupt-*"))) == 1


def test_corruption_found_by_a_search_recreates_the_index(tmp_path: Path) -> None:
    db = tmp_path / "facts.db"
    with closing(FactsIndex(db)) as idx:
        idx.sync([FactSource(f"m{i}", "memory", "2026-01-01", f"Fact number {i} about kittens.") for i in range(300)])
        with closing(sqlite3.connect(db)) as other:  # another process damages the FTS segments under us
            other.execute("DELETE FROM docs_word_data WHERE id > 10")
            other.commit()
        assert idx.search("kittens") == []
        assert idx.sync([VIM]) == SyncResult(added=1)
        assert ids(idx.search("vim")) == ["user-prefers-vim"]
    assert len(list(tmp_path.glob("facts.db.corrupt-*"))) == 1


def test_rebuild_when_schema_version_differs(tmp_path: Path) -> None:
    db = tmp_path / "facts.db"
    with closing(FactsIndex(db)) as idx:
        idx.sync([VIM])
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")
        conn.commit()
    with closing(FactsIndex(db)) as idx:
        assert idx.count() == 0
    assert not list(tmp_path.glob("facts.db.corrupt-*"))


def test_close_is_idempotent_and_reopen_works(tmp_path: Path) -> None:
    idx = FactsIndex(tmp_path / "sub" / "facts.db")
    idx.sync([VIM])
    idx.close()
    idx.close()
    assert ids(idx.search("vim")) == ["user-prefers-vim"]  # reopens on use
    idx.close()
