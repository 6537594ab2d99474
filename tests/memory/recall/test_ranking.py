"""Ranking as a person asking a natural question notices it: the rare word decides, stemmed forms match, one line per
source with its best fact, a common-words-only question still answers, hostile queries never raise, an old
facts.db is rebuilt; and past conversations: turns found with their neighbours' help, still found after history
compaction, labelled ``session DATE turn N``, dropped after ``memory.search_retention_days``."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catcode.conversation.messages import Message
from catcode.memory.builder import build_memory_runtime, build_recall
from catcode.memory.pipeline.archive import archive_path, read_turns
from catcode.memory.pipeline.cursor import DreamCursor
from catcode.memory.pipeline.history import HistoryLog
from catcode.memory.pipeline.history_compaction import compact_history
from catcode.memory.recall.facts import FactsIndex
from catcode.memory.recall.facts_schema import FactSource, Hit
from catcode.memory.recall.recall import Recall
from catcode.memory.recall.stopwords import STOPWORDS
from catcode.memory.recall.views import search_text
from catcode.settings.config import Paths, Settings
from catcode.settings.memory import MemoryConfig
from tests.slowness import bound

TODAY = date(2026, 11, 30)


def memory(i: int | str, text: str, day: str = "2026-01-01") -> FactSource:
    return FactSource(f"m-{i}", "memory", day, text, title=f"m-{i}")


def ids(hits: list[Hit]) -> list[str]:
    return [h.source_id for h in hits]


# -- ranking -------------------------------------------------------------------------------------------------------


def test_a_rare_word_outranks_common_ones(tmp_path: Path) -> None:
    """The natural question's common words match hundreds of newer facts; its one rare word decides."""
    target = memory("old", "Caroline went to the LGBTQ support group on 7 May.", day="2025-05-08")
    crowd = [memory(i, f"Caroline said the support group {i} went well and she will go again.") for i in range(400)]
    with closing(FactsIndex(tmp_path / "facts.db")) as index:
        index.sync([target, *crowd])  # the target is the oldest fact: a newest-first window would never see it
        hits = index.search("When did Caroline go to the LGBTQ support group?", limit=5)
    assert ids(hits)[0] == "m-old" and hits[0].snippet == "Caroline went to the LGBTQ support group on 7 May."
    assert hits[0].score > hits[1].score > 0


@pytest.mark.parametrize(
    ("query", "stored"),
    [
        ("painted", "Nadia is painting the allotment shed."),
        ("painting", "Nadia painted a heron in her first class."),
        ("retries", "The worker retry policy backs off exponentially."),
        ("deployed", "We deploy on Tuesdays."),
        ("What studies did she mention?", "She studied marine biology in Bergen."),
    ],
)
def test_stemmed_forms_match(tmp_path: Path, query: str, stored: str) -> None:
    noise = [memory(i, f"Unrelated note number {i} about gardens.") for i in range(5)]
    with closing(FactsIndex(tmp_path / "facts.db")) as index:
        index.sync([memory("target", stored), *noise])
        assert ids(index.search(query))[:1] == ["m-target"]


def test_one_line_per_source_with_its_best_fact(tmp_path: Path) -> None:
    long_note = memory(
        "deploy-notes",
        "- The deploy script lives in ops/deploy.sh.\n- Every deploy is announced.\n- A deploy needs the deploy key.\n"
        "- Deploy windows are Tuesday and Thursday.",
    )
    others = [memory(i, f"The deploy of service {i} was quiet.") for i in range(3)]
    with closing(FactsIndex(tmp_path / "facts.db")) as index:
        index.sync([long_note, *others])
        hits = index.search("deploy key", limit=10)
    assert len(ids(hits)) == len(set(ids(hits))) == 4
    assert hits[0].source_id == "m-deploy-notes" and hits[0].snippet == "A deploy needs the deploy key."


def test_a_question_of_stop_words_only_still_answers_and_recency_breaks_ties(tmp_path: Path) -> None:
    old = memory("old", "What did we do? We did it.", day="2026-01-01")
    new = memory("new", "What did we do? We did it.", day="2026-02-01")
    with closing(FactsIndex(tmp_path / "facts.db")) as index:
        index.sync([new, old])
        assert ids(index.search("what did we do")) == ["m-new", "m-old"]  # equal BM25: the newer first
        assert {"what", "did", "we", "do"} <= STOPWORDS


def test_description_and_name_rank_above_the_text(tmp_path: Path) -> None:
    titled = FactSource("kafka-retention", "memory", "2026-01-01", "Seven days.", title="kafka retention")
    mention = memory("mention", "We read about kafka once, a retention story, on a train, with coffee and a book.")
    with closing(FactsIndex(tmp_path / "facts.db")) as index:
        index.sync([mention, titled])
        assert ids(index.search("kafka retention"))[0] == "kafka-retention"


_HOSTILE_PIECES = [
    *sorted(STOPWORDS)[:40],
    '"', "'", "*", "^", "(", ")", ":", "-", "+", "AND", "OR", "NOT", "NEAR", "NEAR(a b, 2)", "col:val", "{x}",
    "用户偏好", "偏好", "c++", "os.path.join", "\x00", "\ud800", "🎉", "…", "。", "-n", "--json",
    "when", "went", "bought", "什么时候", "last Tuesday", "vim", "editor",
]  # fmt: skip


@settings(deadline=timedelta(seconds=bound(5)), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.one_of(
        st.lists(st.sampled_from(_HOSTILE_PIECES), max_size=30).map(" ".join),
        st.lists(st.sampled_from(sorted(STOPWORDS)), min_size=1, max_size=12).map(" ".join),
        st.text(alphabet=st.characters(categories=["P", "S"]), max_size=200),
        st.text(max_size=300),
        st.integers(5_000, 10_000).map(lambda n: ("用户 vim AND " * n)[:n]),
    )
)
def test_hostile_queries_never_raise_and_answer_in_bounded_time(hostile_index: FactsIndex, query: str) -> None:
    hits = hostile_index.search(query, limit=100)
    assert isinstance(hits, list) and len(hits) <= 100
    assert len({h.source_id for h in hits}) == len(hits) and all(len(h.snippet) <= 200 for h in hits)


@pytest.fixture(scope="module")
def hostile_index(tmp_path_factory: pytest.TempPathFactory) -> FactsIndex:
    texts = [
        "用户偏好 vim 编辑器。",
        "The engine is written in c++.",
        "Use os.path.join; never concatenate.",
        "What did we do? We did it and then some more of the same.",
        "Quotes \" and 'apostrophes' (parens).",
    ]
    with closing(FactsIndex(tmp_path_factory.mktemp("hostile") / "facts.db")) as index:
        index.sync([memory(i, texts[i % len(texts)] + f" Note {i}.") for i in range(300)])
        yield index


def test_a_facts_db_of_the_previous_schema_is_rebuilt(tmp_path: Path) -> None:
    db = tmp_path / "facts.db"
    with closing(sqlite3.connect(db)) as conn:  # the layout catcode wrote before BM25 ranked whole sources
        conn.executescript(
            "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
            "INSERT INTO meta VALUES ('schema_version', '1');"
            "CREATE TABLE sources(source_id TEXT PRIMARY KEY, kind TEXT, date TEXT, scope TEXT, hash TEXT);"
            "CREATE TABLE facts(id INTEGER PRIMARY KEY, source_id TEXT NOT NULL, text TEXT NOT NULL, words TEXT);"
            "CREATE VIRTUAL TABLE facts_word USING fts5(words, content='');"
            "INSERT INTO sources VALUES ('old', 'memory', '2026-01-01', 'project', 'x');"
        )
    with closing(FactsIndex(db)) as index:
        assert index.count() == 0
        index.sync([memory("vim", "The user edits with vim.")])
        assert ids(index.search("vim")) == ["m-vim"]


# -- past conversations --------------------------------------------------------------------------------------------


@pytest.fixture
def paths(tmp_path: Path) -> Paths:
    return Paths(tmp_path / "home", tmp_path / "proj", "proj-0123abcd", tmp_path / "memory", "tester")


def history(paths: Paths, session: str, day: date) -> HistoryLog:
    clock = lambda: datetime(day.year, day.month, day.day, 10, tzinfo=datetime.now().astimezone().tzinfo)  # noqa: E731
    paths.history_file.parent.mkdir(parents=True, exist_ok=True)
    return HistoryLog(paths.history_file, session_id=session, lock_path=paths.project_memory / ".history.lock",
                      clock=clock)  # fmt: skip


def recall_for(paths: Paths, **memory_settings: object) -> Recall:
    runtime = build_memory_runtime(Settings(memory=MemoryConfig(**memory_settings)), paths)
    return build_recall(runtime, today=lambda: TODAY)


def say(log: HistoryLog, *lines: str) -> None:
    for i, line in enumerate(lines):
        log.append(Message.user(line) if i % 2 == 0 else Message.assistant(line))


def test_a_conversation_turn_is_still_found_after_history_compaction(paths: Paths) -> None:
    log = history(paths, "s-old", TODAY - timedelta(days=6))
    say(
        log,
        "What retry policy should the webhook worker use?",
        "Exponential backoff with full jitter, capped at 30 s.",
        "Good, and how many attempts?",
        "Eight attempts: about four minutes of trying.",
    )
    with recall_for(paths) as recall:
        assert search_text(recall, "retry policy webhook").startswith(f"session {TODAY - timedelta(days=6)} turn 1: ")
    later = history(paths, "s-new", TODAY)
    say(later, *[f"Unrelated line {i} about the frontend colours." for i in range(40)])
    cursor = DreamCursor(paths.cursor_file, lock_path=paths.project_memory / ".history.lock")
    cursor.advance(later.read()[-1].seq)
    assert compact_history(later, cursor, char_budget=500, keep_recent=5, summarize=lambda r: "Earlier work.")
    assert b"jitter" not in paths.history_file.read_bytes()
    with recall_for(paths) as recall:  # a new process: the index is rebuilt from history.jsonl and its archive
        recall.index.close()
        paths.facts_db.unlink()
        found = search_text(recall, "what did we decide about the jitter?")
    assert found.split("\n")[0] == f"session {TODAY - timedelta(days=6)} turn 2: " + (
        "Exponential backoff with full jitter, capped at 30 s."
    )


def test_turns_compacted_before_any_search_are_found_and_a_short_reply_by_its_neighbours(paths: Paths) -> None:
    log = history(paths, "s1", TODAY - timedelta(days=2))
    say(log, "Did the Lisbon offsite get booked for the 14th?", "Yes, last Tuesday.", "Great.", "Anything else?")
    say(log, *[f"Filler line {i} on a different topic entirely." for i in range(30)])
    cursor = DreamCursor(paths.cursor_file)
    cursor.advance(log.read()[-1].seq)
    assert compact_history(log, cursor, char_budget=200, keep_recent=2, summarize=lambda r: "Older talk.")
    assert [t.text for t in read_turns(archive_path(paths.history_file))][:2] == [
        "Did the Lisbon offsite get booked for the 14th?", "Yes, last Tuesday."]  # fmt: skip
    with recall_for(paths) as recall:
        hits = recall.search("Lisbon offsite booked", limit=5)
    labels = [h.label for h in hits]
    day = TODAY - timedelta(days=2)
    assert labels[:2] == [f"session {day} turn 1", f"session {day} turn 2"]  # the reply through its context
    assert hits[1].snippet == "Yes, last Tuesday." and hits[1].as_dict()["kind"] == "session"


def test_the_session_asking_does_not_find_its_own_turns(paths: Paths) -> None:
    say(history(paths, "earlier", TODAY - timedelta(days=1)), "The quokka migration is done.", "Noted.")
    runtime = build_memory_runtime(Settings(), paths)
    runtime.session_id = "now"
    say(history(paths, "now", TODAY), "What did we say about the quokka migration?", "Let me search.")
    with build_recall(runtime, today=lambda: TODAY) as recall:
        snippets = [h.snippet for h in recall.search("quokka migration")]
    assert snippets == ["The quokka migration is done.", "Noted."]  # "Noted." through its context


def test_retention_drops_old_turns_from_the_index_and_the_archive(paths: Paths) -> None:
    old, new = TODAY - timedelta(days=40), TODAY - timedelta(days=3)
    say(history(paths, "s-old", old), "The zeppelin flag was retired.", "OK.")
    say(history(paths, "s-new", new), "The zeppelin flag came back.", "OK.")
    cursor = DreamCursor(paths.cursor_file)
    log = history(paths, "x", TODAY)
    cursor.advance(log.read()[-1].seq)
    compact_history(log, cursor, char_budget=10, keep_recent=0, summarize=lambda r: "Older talk.")
    with recall_for(paths) as recall:
        assert {h.date for h in recall.search("zeppelin flag")} == {str(old), str(new)}
    with recall_for(paths, search_retention_days=30) as recall:
        assert [h.snippet for h in recall.search("zeppelin flag")] == ["The zeppelin flag came back.", "OK."]
    assert [t.date for t in read_turns(archive_path(paths.history_file))] == [str(new), str(new)]


def test_hits_as_json_have_the_documented_keys() -> None:
    hit = Hit("turn/7", "turn", "2026-11-30", "Yes.", 3.14159, "project", "session 2026-11-30 turn 2")
    assert json.loads(json.dumps(hit.as_dict())) == {
        "kind": "session", "source": "session 2026-11-30 turn 2", "date": "2026-11-30", "score": 3.1416,
        "snippet": "Yes.", "scope": "project"}  # fmt: skip
    assert Hit("weekly/2026-W48", "weekly", "2026-11-23", "x", 1.0).as_dict()["source"] == "summary 2026-11-23"
    assert Hit("vim", "memory", "2026-01-01", "x", 1.0, "user").as_dict()["source"] == "memory vim"
