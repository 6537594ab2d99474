"""Reopening an earlier session (``catcode --continue``, ``catcode --resume [ID]``, ``/resume``): the sessions of
this project and their conversations, rebuilt from ``history.jsonl`` through ``HistoryLog``.

The log holds every stored message with its session id, plus markers this module writes:
- ``session_resumed`` (``resumes``: the session whose conversation this one took up, at that point);
- ``context_compacted`` (``summary``, ``ack``, ``kept``): context compaction replaced all but the last ``kept``
  messages by a summary pair, so a rebuilt conversation uses the summary too, as the live one did;
- ``conversation_cleared``: ``/clear`` started a new conversation.

Rebuilding keeps the conversation valid for the API: empty text blocks are dropped, every tool_use keeps its
tool_result (an unanswered one — a crash mid-tool — gets an "interrupted" result; a result whose call is gone is
dropped). When history compaction has folded a session's older lines into a ``compacted_summary``, that summary
stands in for them.

Restored messages are put into the agent without being appended to history again, so memory extraction (which
works from the log after its cursor) never sees them a second time. Choosing and taking up a session is
``resuming.py``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from catcode.conversation.messages import Message, Role, TextBlock, ToolResultBlock, history_problems
from catcode.log import get_logger

if TYPE_CHECKING:
    from catcode.session.attached import HistoryLog
    from catcode.session.session import Session

# Any: history records are the memory pipeline's (``HistoryRecord``, a floor above); read here by their fields.

log = get_logger(__name__)

RESUMED, COMPACTED, CLEARED = "session_resumed", "context_compacted", "conversation_cleared"
REWOUND, UNREWOUND = "conversation_rewound", "conversation_unrewound"  # /rewind's conversation part, and its undo
EARLIER = "[Earlier in this project, summarised]"
EARLIER_ACK = "Understood. I have the summary of the earlier conversation and will continue from it."
INTERRUPTED = "Interrupted before this tool finished (the session ended)."
MAX_CHAIN = 50  # sessions resumed from sessions: a bound against a hand-edited log that loops


@dataclass(frozen=True)
class SessionInfo:
    """One earlier session, for the picker."""

    id: str
    started: str  # ISO time of its first line still in the log
    first_message: str
    messages: int  # messages of its conversation, inherited ones included
    last_seq: int


def _first_text(record: Any) -> str:
    if record.type != "message" or record.role != "user":
        return ""
    for block in record.content or []:
        if block.get("type") == "text" and str(block.get("text", "")).strip():
            return " ".join(str(block["text"]).split())
    return ""


def list_sessions(history: HistoryLog, *, exclude: str | None = None) -> list[SessionInfo]:
    """Sessions that have a conversation, most recently active first (``exclude``: the running one)."""
    records = history.read()
    ids: dict[str, list[Any]] = {}
    for record in records:
        if record.session:
            ids.setdefault(record.session, []).append(record)
    found: list[SessionInfo] = []
    for session, own in ids.items():
        if session == exclude or not any(r.type == "message" for r in own):
            continue
        first = next((text for r in own if (text := _first_text(r))), "")
        count = len(rebuild(records, session))
        found.append(SessionInfo(session, own[0].ts, first, count, own[-1].seq))
    return sorted(found, key=lambda s: s.last_seq, reverse=True)


def find_session(history: HistoryLog, wanted: str, *, exclude: str | None = None) -> SessionInfo | None:
    """The session whose id is ``wanted`` or starts with it (None when none or several do)."""
    matches = [s for s in list_sessions(history, exclude=exclude) if s.id.startswith(wanted)]
    exact = [s for s in matches if s.id == wanted]
    return exact[0] if exact else (matches[0] if len(matches) == 1 else None)


def rebuild(records: list[Any], session: str, before_seq: int | None = None, depth: int = 0) -> list[Message]:
    """The conversation of ``session`` as it stood (up to ``before_seq``), valid for the API."""
    own = [r for r in records if r.session == session and (before_seq is None or r.seq < before_seq)]
    messages: list[Message] = []
    if own and own[0].type != "session_start":  # its start was folded into a history summary
        summary = next((r for r in records if r.type == "compacted_summary" and r.seq < own[0].seq), None)
        if summary is not None and summary.summary:
            messages = [Message.user(f"{EARLIER}\n{summary.summary}"), Message.assistant(EARLIER_ACK)]
        start = next((i for i, r in enumerate(own) if _turn_start(r)), len(own))
        own = own[start:]  # what is left of a turn cut by the compaction is dropped with it
    before_rewinds: list[list[Message]] = []
    for record in own:
        if record.type == "message":
            try:
                _append(messages, record.message())
            except ValueError:
                log.warning("resume_bad_line", seq=record.seq)
        elif record.type == RESUMED and depth < MAX_CHAIN:
            messages = rebuild(records, str(record.model_extra.get("resumes", "")), record.seq, depth + 1)
        elif record.type == COMPACTED:
            messages = _compacted(messages, record)
        elif record.type == CLEARED:
            messages = []
        elif record.type == REWOUND:
            before_rewinds.append(messages)
            messages = messages[: int(record.model_extra.get("kept", len(messages)))]
        elif record.type == UNREWOUND and before_rewinds:
            messages = before_rewinds.pop()
    return repair(messages)


def _append(messages: list[Message], message: Message) -> None:
    """Add a message, merging it into the last one when the roles repeat (as the agent merged it live)."""
    if messages and messages[-1].role is message.role:
        messages[-1] = messages[-1].model_copy(update={"content": [*messages[-1].content, *message.content]})
    else:
        messages.append(message)


def _turn_start(record: Any) -> bool:
    """A message of the person that is not tool results: where a conversation may begin."""
    blocks = record.content or []
    return (
        record.type == "message"
        and record.role == "user"
        and any(b.get("type") == "text" for b in blocks)
        and not any(b.get("type") == "tool_result" for b in blocks)
    )


def _compacted(messages: list[Message], record: Any) -> list[Message]:
    extra = record.model_extra or {}
    kept = extra.get("kept")
    if not isinstance(kept, int) or kept < 0 or kept > len(messages) or not record.summary:
        return messages
    head = [Message.user(record.summary), Message.assistant(str(extra.get("ack") or EARLIER_ACK))]
    return [*head, *messages[len(messages) - kept :]] if kept else head


def repair(messages: list[Message]) -> list[Message]:
    """Make a rebuilt conversation valid: starts with a turn of the person, tool results only answer the calls
    just before them, unanswered calls get an "interrupted" result."""
    out: list[Message] = []
    for message in messages:
        # an empty (or blank) text block, as a cut stream can leave one, is refused by the API: one would make
        # every resume of the session fail
        content = [b for b in message.content if not (isinstance(b, TextBlock) and not b.text.strip())]
        if message.role is Role.USER:
            asked = {b.id for b in out[-1].tool_uses} if out and out[-1].role is Role.ASSISTANT else set()
            content = [b for b in content if not isinstance(b, ToolResultBlock) or b.tool_use_id in asked]
            answered = {b.tool_use_id for b in content if isinstance(b, ToolResultBlock)}
            missing = [i for i in asked if i not in answered]
            content = [ToolResultBlock(tool_use_id=i, content=INTERRUPTED, is_error=True) for i in missing] + content
        elif out and out[-1].role is Role.ASSISTANT and out[-1].tool_uses:
            _close(out)
        if not content or (not out and message.role is not Role.USER):
            continue
        if not out and all(isinstance(b, ToolResultBlock) for b in content):
            continue
        _append(out, Message(role=message.role, content=content))
    if out and out[-1].role is Role.ASSISTANT and out[-1].tool_uses:
        _close(out)
    if history_problems(out):  # should not happen; never hand the API an invalid conversation
        log.warning("resume_repair_incomplete", problems=history_problems(out)[:3])
        return [m for m in out if not m.tool_uses and not m.tool_results] or []
    return out


def _close(out: list[Message]) -> None:
    results = [ToolResultBlock(tool_use_id=c.id, content=INTERRUPTED, is_error=True) for c in out[-1].tool_uses]
    out.append(Message(role=Role.USER, content=list(results)))


class HistoryMarkers:
    """Writes the markers ``rebuild`` needs: wired by ``app.build_session`` to the agent's replacement
    listeners (compaction, /clear)."""

    def __init__(self, history: HistoryLog) -> None:
        self.history = history

    def replaced(self, messages: list[Message]) -> None:
        """The agent swapped its conversation: ``[]`` is /clear; a summary pair in front is a compaction."""
        from catcode.session.compaction import is_synthetic

        try:
            if not messages:
                self.history.append_event(CLEARED)
            elif len(messages) >= 2 and is_synthetic(messages[0]) and is_synthetic(messages[1]):
                self.history.append_event(
                    COMPACTED, summary=messages[0].text, ack=messages[1].text, kept=len(messages) - 2
                )
        except Exception:
            log.warning("history_marker_failed", exc_info=True)

    def rewound(self, kept: int) -> None:
        """/rewind kept the first ``kept`` messages of the conversation (written before the agent is told)."""
        self.history.append_event(REWOUND, kept=kept)

    def unrewound(self) -> None:
        """The last rewind was undone: the conversation is back as it was before it."""
        self.history.append_event(UNREWOUND)

    def resumed(self, session: str) -> None:
        """This session took up ``session``'s conversation."""
        self.history.append_event(RESUMED, resumes=session)


def restore(session: Session, chosen: SessionInfo) -> int:
    """Put ``chosen``'s conversation into ``session``'s agent; how many messages it holds (``chosen`` came from
    the session's own history, so it has one)."""
    history = session.history
    assert history is not None, "restore needs the session's history"
    messages = rebuild(history.read(), chosen.id)
    session.agent.restore(messages)
    session.todos.sync(messages)  # the todo list of the resumed conversation
    if chosen.id != session.session_id:  # going on under the same id needs no marker: the log is one conversation
        HistoryMarkers(history).resumed(chosen.id)
    return len(messages)
