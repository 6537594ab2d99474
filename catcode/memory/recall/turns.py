"""Past conversations in the fact index: every user and assistant message, one source per turn.

A turn is indexed with its session, its date and its number in its session (``session 2026-11-30 turn 4``), and
with the turns around it (``CONTEXT_TURNS`` on each side, same session) in the lower-weighted ``context`` column:
a short reply such as "yes, last Tuesday" is found by the question it answers. On the recall corpus this
window doubles the share of context-dependent answers found in the top 5 (scripts/bench.py, retrieval section).

Turns are indexed incrementally, in seq order: ``meta.turn_seq`` is the last seq indexed, and each sync adds the
turns after it — read from history.jsonl, then from ``history-archive.jsonl`` where compaction moved them (in
that order: compaction writes the archive before it rewrites history, so nothing is missed in between). A new
turn changes its predecessors' context, so they are re-indexed with it. ``turns`` keeps each turn's text for that.
The facts.py lock serialises these writes within a process and ``BEGIN IMMEDIATE`` across processes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from catcode.memory.pipeline.archive import Turn
from catcode.memory.recall.facts_schema import FactSource
from catcode.memory.recall.facts_write import delete_rows, insert_rows

__all__ = ["CONTEXT_TURNS", "drop_turns_before", "index_turns", "indexed_turn_seq", "turn_source_id"]

CONTEXT_TURNS = 2
"""Turns on each side of a turn that make up its context column (1 and 3 measured lower on the recall corpus)."""


def turn_source_id(seq: int) -> str:
    """The fact-index id of the turn with history seq ``seq``."""
    return f"turn/{seq}"


def indexed_turn_seq(conn: sqlite3.Connection) -> int:
    """The last history seq indexed (0 for none)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'turn_seq'").fetchone()
    return int(row[0]) if row else 0


def index_turns(conn: sqlite3.Connection, turns: Iterable[Turn], since: str = "") -> int:
    """Index the turns after ``meta.turn_seq`` (the caller holds a write transaction) and re-index the earlier
    turns of their sessions whose context they change; turns dated before ``since`` are skipped. Returns how many
    turns were added."""
    last = indexed_turn_seq(conn)
    new = sorted((t for t in turns if t.seq > last), key=lambda t: t.seq)
    if not new:
        return 0
    numbers: dict[str, int] = {}
    rows = []
    for turn in new:
        if turn.session not in numbers:
            found = conn.execute("SELECT max(n) FROM turns WHERE session = ?", (turn.session,)).fetchone()[0]
            numbers[turn.session] = found or 0
        numbers[turn.session] += 1
        if turn.date >= since:
            rows.append((turn.seq, turn.session, numbers[turn.session], turn.date, turn.text))
    conn.executemany("INSERT OR REPLACE INTO turns(seq, session, n, date, text) VALUES (?, ?, ?, ?, ?)", rows)
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('turn_seq', ?)", (str(new[-1].seq),))
    _reindex(conn, _affected(conn, rows))
    return len(rows)


def _affected(conn: sqlite3.Connection, rows: list[tuple[int, str, int, str, str]]) -> list[int]:
    """The seqs to (re-)index: the new turns and the ``CONTEXT_TURNS`` before each session's first new turn."""
    seqs = {row[0] for row in rows}
    first: dict[str, int] = {}
    for _seq, session, n, _date, _text in rows:
        first.setdefault(session, n)
    for session, n in first.items():
        before = conn.execute(
            "SELECT seq FROM turns WHERE session = ? AND n >= ? AND n < ?", (session, n - CONTEXT_TURNS, n)
        )
        seqs.update(seq for (seq,) in before)
    return sorted(seqs)


def _reindex(conn: sqlite3.Connection, seqs: list[int]) -> None:
    """Replace the fact-index rows of the turns ``seqs`` with their current text and context."""
    sources = []
    for seq in seqs:
        row = conn.execute("SELECT session, n, date, text FROM turns WHERE seq = ?", (seq,)).fetchone()
        session, n, date, text = row
        around = conn.execute(
            "SELECT text FROM turns WHERE session = ? AND n BETWEEN ? AND ? AND n != ? ORDER BY n",
            (session, n - CONTEXT_TURNS, n + CONTEXT_TURNS, n),
        )
        context = "\n".join(t for (t,) in around)
        label = f"session {date or 'undated'} turn {n}"
        source_id = turn_source_id(seq)
        sources.append(FactSource(source_id, "turn", date, text, context=context, label=label, session=session))
    delete_rows(conn, [s.source_id for s in sources])
    insert_rows(conn, [(s, s.digest()) for s in sources])


def drop_turns_before(conn: sqlite3.Connection, day: str) -> int:
    """Remove the turns dated before ``day`` from the index (the caller holds a write transaction); how many."""
    seqs = [seq for (seq,) in conn.execute("SELECT seq FROM turns WHERE date < ?", (day,))]
    delete_rows(conn, [turn_source_id(seq) for seq in seqs])
    conn.executemany("DELETE FROM turns WHERE seq = ?", [(seq,) for seq in seqs])
    return len(seqs)
