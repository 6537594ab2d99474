"""History compaction: once history.jsonl grows past its budget, the processed lines (except the newest
``keep_recent``) are replaced by ONE ``compacted_summary`` line and every later line is copied byte for byte. The
user and assistant messages it drops are first appended to ``history-archive.jsonl`` (``archive.py``), so every turn
stays searchable whoever calls compaction.

The summary is one LLM call (``llm_summarizer``: the history summary prompt over ``transcript.SUMMARY``); when it
fails, a stub with counts and dates stands in, so compaction never waits on the model to keep the file small."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from catcode.conversation.transcript import SUMMARY, render_transcript
from catcode.fsutil import atomic_write_bytes, locked
from catcode.log import get_logger
from catcode.memory.pipeline.archive import archive_path, archive_turns
from catcode.memory.pipeline.cursor import DreamCursor
from catcode.memory.pipeline.history import HistoryError, HistoryLog
from catcode.memory.pipeline.history_format import HistoryRecord, parse_line, split_lines, utc_stamp
from catcode.memory.pipeline.llm import ask
from catcode.providers.base import LLMProvider

logger = get_logger(__name__)

Summarizer = Callable[[list[HistoryRecord]], str]
SUMMARY_PROMPT = """Summarise these earlier lines of a coding session for the session log, in at most 10 short
bullet points: the user's goals and instructions, decisions, files touched, and outcomes. No preamble.

{transcript}"""
SUMMARY_TRANSCRIPT_CHARS = 60_000
"""The newest part of the lines kept for their summary."""


def llm_summarizer(provider: LLMProvider) -> Summarizer:
    """``summarize`` for ``compact_history``: one call to ``provider`` with the history summary prompt."""

    def summarize(records: list[HistoryRecord]) -> str:
        earlier = [f"EARLIER SUMMARY: {r.summary}\n" for r in records if r.type == "compacted_summary"]
        messages = [r.message() for r in records if r.type == "message"]
        transcript = ("".join(earlier) + render_transcript(messages, SUMMARY))[-SUMMARY_TRANSCRIPT_CHARS:]
        return ask(provider, SUMMARY_PROMPT.format(transcript=transcript))

    return summarize


class CompactResult(BaseModel):
    """What one history compaction did."""

    covers: tuple[int, int]
    """First and last seq the new summary stands for."""
    replaced_lines: int
    """Lines removed from the file (records and torn fragments) in favour of the one summary line."""
    stub: bool
    """True when ``summarize`` failed and a plain count-and-dates stub was written instead."""
    chars_before: int
    """Characters of the file before; with ``chars_after``, what the ``history_compacted`` log line reports."""
    chars_after: int
    """Characters of the file after."""


class _Plan(BaseModel):
    """The prefix of the file to replace, as read before summarising."""

    prefix: bytes
    records: list[HistoryRecord]
    lines: int


def compact_history(
    log: HistoryLog,
    cursor: DreamCursor,
    *,
    char_budget: int = 32_000,
    keep_recent: int = 30,
    summarize: Summarizer,
) -> CompactResult | None:
    """Fold processed history into one summary line when the file exceeds ``char_budget`` characters.

    ``summarize`` (typically an LLM call) runs WITHOUT the lock so other sessions can keep appending; the
    rewrite then happens under the lock and only if the file still starts with the bytes that were
    summarised (a concurrent compaction makes this one give up). ``Exception`` from ``summarize`` gives a
    stub summary; anything else (KeyboardInterrupt) propagates with the file untouched. Returns None when
    there is nothing to do; raises ``HistoryError`` when the rewrite fails (the file is left as it was)."""
    plan = _plan(log.path, cursor.get(), char_budget, keep_recent)
    if plan is None:
        return None
    text, stub = _summary_text(plan.records, summarize)
    summary = _summary_record(plan.records, text, utc_stamp(log.clock))
    line = json.dumps(summary, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    with locked(log.lock_path):
        data = _read(log.path)
        if not data.startswith(plan.prefix):
            logger.info("history_compaction_raced", path=str(log.path))
            return None
        new = line + data[len(plan.prefix) :]
        try:
            # Before the rewrite: a turn must never leave history.jsonl without its archived copy.
            archive_turns(archive_path(log.path), plan.records)
            atomic_write_bytes(log.path, new)
        except OSError as exc:
            raise HistoryError(f"Could not compact {log.path}: {exc.strerror}; it was left unchanged") from exc
    result = CompactResult(
        covers=tuple(summary["covers"]),
        replaced_lines=plan.lines,
        stub=stub,
        chars_before=len(data.decode(errors="replace")),
        chars_after=len(new.decode(errors="replace")),
    )
    logger.info("history_compacted", path=str(log.path), **result.model_dump())
    return result


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""


def _plan(path: Path, cursor_seq: int, char_budget: int, keep_recent: int) -> _Plan | None:
    """The replaceable prefix: lines before the first unprocessed record and before the newest ``keep_recent`` —
    of which only as many are kept as fit in half the budget, so that after a compaction the file holds at most
    half its budget of processed lines, one summary line, and the lines not yet processed."""
    data = _read(path)
    if len(data.decode(errors="replace")) <= char_budget:
        return None
    lines, _tail = split_lines(data)
    parsed = [parse_line(raw) for raw in lines]
    valid = [i for i, rec in enumerate(parsed) if rec is not None]
    boundary = len(lines)
    if keep_recent:
        boundary = valid[-keep_recent] if len(valid) >= keep_recent else 0
    first_unprocessed = next((i for i in valid if parsed[i].seq > cursor_seq), len(lines))  # type: ignore[union-attr]
    boundary = min(boundary, first_unprocessed)
    kept = sum(len(raw.decode(errors="replace")) for raw in lines[boundary:first_unprocessed])
    while boundary < first_unprocessed and kept > char_budget // 2:  # a few huge recent lines: fold them too
        kept -= len(lines[boundary].decode(errors="replace"))
        boundary += 1
    records = [rec for rec in parsed[:boundary] if rec is not None]
    if not records or (len(records) == 1 and records[0].type == "compacted_summary"):
        return None  # nothing new to fold in
    return _Plan(prefix=b"".join(lines[:boundary]), records=records, lines=boundary)


def _summary_text(records: list[HistoryRecord], summarize: Summarizer) -> tuple[str, bool]:
    """The summary from ``summarize``, or a stub when it fails or returns nothing usable."""
    try:
        text = summarize(records)
        if isinstance(text, str) and text.strip():
            return text, False
        logger.warning("history_summary_empty")
    except Exception as exc:  # the summariser is an LLM call: any failure falls back to the stub
        logger.warning("history_summary_failed", error=str(exc))
    stats = _stats(records)
    return (
        f"{stats['count']} earlier messages from {stats['sessions']} sessions "
        f"between {str(stats['since'])[:10] or 'unknown'} and {str(stats['until'])[:10] or 'unknown'}",
        True,
    )


def _stats(records: list[HistoryRecord]) -> dict[str, str | int]:
    """Messages, sessions (folded summaries add theirs) and the date range the records stand for."""
    count, sessions, stamps = 0, set(), []
    folded_sessions = 0
    for rec in records:
        if rec.type == "compacted_summary":
            count += rec.count or 0
            extra = rec.model_extra or {}
            folded_sessions += int(extra.get("sessions") or 0)
            stamps += [s for s in (extra.get("since"), extra.get("until")) if isinstance(s, str) and s]
        else:
            count += rec.type == "message"
            if rec.session:
                sessions.add(rec.session)
            if rec.ts:
                stamps.append(rec.ts)
    return {
        "count": count,
        "sessions": len(sessions) + folded_sessions,
        "since": min(stamps, default=""),
        "until": max(stamps, default=""),
    }


def _summary_record(records: list[HistoryRecord], text: str, stamp: str) -> dict[str, Any]:  # Any: a JSON line
    """The ``compacted_summary`` line; its seq is the last replaced seq so seqs stay monotonic and unused."""
    first, last = records[0], records[-1]
    first_seq = first.covers[0] if first.type == "compacted_summary" and first.covers else first.seq
    stats = _stats(records)
    return {
        "seq": last.seq,
        "type": "compacted_summary",
        "ts": stamp,
        "covers": [min(first_seq, first.seq), last.seq],
        "count": stats["count"],
        "sessions": stats["sessions"],
        "since": stats["since"],
        "until": stats["until"],
        "summary": text,
    }
