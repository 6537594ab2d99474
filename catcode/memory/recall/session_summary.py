"""The session summary: at exit, ONE LLM call summarises the session into today's daily journal file.

This module owns the summary's prompt (a compact transcript of the session's records in history.jsonl), the call
bounded by ``memory.exit_timeout`` and the redacted, committed append. ``Recall.summarize_session_at_exit`` and
``Recall.append_summary`` are its entry points."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from catcode.conversation.transcript import SUMMARY, render_transcript
from catcode.errors import one_line
from catcode.fsutil import locked
from catcode.log import get_logger
from catcode.memory.pipeline.history import HistoryLog
from catcode.memory.pipeline.history_format import HistoryRecord
from catcode.memory.pipeline.llm import ask
from catcode.memory.recall.journal import DailyEntry, Journal, clean_summary
from catcode.providers.base import LLMProvider
from catcode.redact import redact
from catcode.tools.facts import READ_ONLY_TOOLS, canonical

if TYPE_CHECKING:
    from catcode.settings.memory import MemoryConfig
    from catcode.settings.paths import Paths

__all__ = ["SummaryContext", "append_summary", "session_prompt", "session_records", "summarize_session_at_exit"]

log = get_logger(__name__)

SESSION_PROMPT = """Summarise this coding session for the work journal of the project, so that a later session can
continue where it stopped. At most 8 short bullet points: what was done (files, features, fixes), decisions and
their reasons, and open threads (prefix them "Open:"). Use names and identifiers exactly as written. No preamble,
no heading.

{transcript}"""
TRANSCRIPT_CHARS = 40_000
"""The newest part of a session kept for its summary: long sessions are cut at the front."""


class SummaryContext(Protocol):
    """What the session summary works with: one project's journal and session (``Recall`` is one)."""

    provider: LLMProvider | None
    history: HistoryLog | None
    session_id: str
    config: MemoryConfig  # ``exit_timeout``
    paths: Paths  # ``memory_lock``
    journal: Journal
    commit: Callable[[str, list[Path]], str | None] | None
    today: Callable[[], date]
    now: Callable[[], datetime]

    def append_summary(self, text: str) -> Path:
        """Add a session summary to today's daily file and commit it."""
        ...


def render_session(records: list[HistoryRecord], earlier: str | None = None) -> str:
    """A session's messages (``transcript.SUMMARY``), after the summary of its compacted start if there is one;
    the newest ``TRANSCRIPT_CHARS`` of it."""
    transcript = render_transcript([record.message() for record in records], SUMMARY)
    head = f"EARLIER IN THE SESSION (summary): {earlier}\n" if earlier else ""
    return (head + transcript)[-TRANSCRIPT_CHARS:]


def session_prompt(records: list[HistoryRecord], earlier: str | None = None) -> str:
    """The prompt of the one LLM call that summarises a session."""
    return SESSION_PROMPT.format(transcript=render_session(records, earlier))


def session_records(history: HistoryLog, session_id: str) -> tuple[list[HistoryRecord], str | None]:
    """This session's message records, and the compacted summary at the head of history.jsonl when it swallowed
    the session's start (a long session whose first lines were compacted)."""
    records = history.read()
    mine = [r for r in records if r.session == session_id and r.type == "message"]
    started = any(r.session == session_id and r.type == "session_start" for r in records)
    head = records[0] if records else None
    swallowed = mine and not started and head is not None and head.type == "compacted_summary"
    return mine, head.summary if swallowed and head is not None else None


def summarize_session_at_exit(
    recall: SummaryContext, say: Callable[[str], None], *, timeout: float | None = None, saved: bool = True
) -> None:
    """Append ONE summary of this session to today's daily file: one LLM call bounded by ``timeout`` (default
    ``memory.exit_timeout``; after the exit, what capture left of that one budget). Never raises; a failure is
    logged and is one line. Skipped: sessions with fewer than 2 user messages, and sessions in which nothing
    happened — nothing was ``saved`` to memory and no tool but those that only read was called (a question and its
    answer leave nothing for the journal)."""
    provider = recall.provider
    if provider is None or recall.history is None:
        return
    try:
        records, earlier = session_records(recall.history, recall.session_id)
    except Exception:
        log.warning("session_summary_unreadable_history", exc_info=True)
        return
    asked = sum(1 for r in records if r.role == "user" and not r.message().is_tool_result)
    if asked < 2 and earlier is None:
        log.info("session_summary_skipped", user_messages=asked)
        return
    worked = {canonical(call.name) or call.name for r in records for call in r.message().tool_uses} - READ_ONLY_TOOLS
    if not saved and not worked and earlier is None:
        log.info("session_summary_skipped", reason="nothing happened: nothing saved, only reading tools")
        return
    timeout = recall.config.exit_timeout if timeout is None else timeout
    if timeout <= 0:
        log.warning("session_summary_no_time_left")
        say("The session summary was skipped: memory capture used the whole exit time (memory.exit_timeout).")
        return
    written: list[Path] = []
    errors: list[Exception] = []
    abandoned = threading.Event()  # after a timeout or Ctrl+C nothing is written any more

    def work() -> None:
        try:
            reply = ask(provider, session_prompt(records, earlier))
            if not abandoned.is_set():
                written.append(recall.append_summary(reply))
        except Exception as exc:
            errors.append(exc)

    worker = threading.Thread(target=work, name="session-summary", daemon=True)
    worker.start()
    try:
        worker.join(timeout)
    except KeyboardInterrupt:
        abandoned.set()
        say("Skipped the session summary.")
        return
    if worker.is_alive():
        abandoned.set()
        log.warning("session_summary_timeout", timeout=timeout)
        say(f"The session summary timed out after {timeout:.0f}s and was skipped.")
    elif errors:
        log.warning("session_summary_failed", error=repr(errors[0]))
        say(f"The session summary failed ({one_line(errors[0])}) and was skipped.")
    else:
        log.info("session_summary_written", path=str(written[0]))
        say("Session summary saved to the journal — /memory recent shows it.")


def append_summary(recall: SummaryContext, text: str) -> Path:
    """Add a session summary to today's daily file (redacted, under the memory lock) and commit it."""
    summary = clean_summary(redact(text)[0])
    if not summary:
        raise ValueError("the model returned an empty summary")
    entry = DailyEntry(day=recall.today(), time=recall.now().strftime("%H:%M"), session=recall.session_id, text=summary)
    with locked(recall.paths.memory_lock):
        path = recall.journal.append(entry)
        if recall.commit is not None:
            try:
                recall.commit(f"session-summary: {entry.day}", [recall.journal.root])
            except Exception as exc:  # the summary is on disk; the next commit of the journal picks it up
                log.warning("session_summary_commit_failed", error=repr(exc))
    return path
