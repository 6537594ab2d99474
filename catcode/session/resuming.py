"""Taking up an earlier session as data: ``resume_session`` finds the session asked for (an id or its start, the
most recent one, or the one a front end's picker chose), puts its conversation into the running session
(``reopen.restore``) and returns a ``Resumption`` — which session, how many messages, or why none was taken up.
The REPL (``/resume``, ``catcode --continue`` / ``--resume`` at start: ``commands/resume.py``) and print mode
(``cli/print_mode.py``) draw the picker and word the outcome each their own way, over the sentences here that
name no command."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from catcode.session.reopen import SessionInfo, find_session, list_sessions, restore
from catcode.text import shorten

if TYPE_CHECKING:
    from catcode.session.session import Session

NO_HISTORY = (
    "Resuming needs the conversation log, which is kept with memory: turn memory on (memory.enabled: true) to "
    "resume sessions."
)
Choose = Callable[[list[SessionInfo]], SessionInfo | None]
"""A front end's picker: the earlier sessions, most recent first; the one chosen, or None."""


class Unresumed(StrEnum):
    """Why no session was taken up."""

    NO_HISTORY = "no history"  # memory is off: there is no conversation log to rebuild one from
    UNKNOWN_ID = "unknown id"  # no session (or several) has the id asked for
    NO_EARLIER = "no earlier session"  # this project has no other session with a conversation
    NOT_CHOSEN = "not chosen"  # the picker was left without choosing


@dataclass(frozen=True)
class Resumption:
    """What ``resume_session`` did: took up ``chosen`` (``messages`` of it are now the conversation), or not and
    why (``unresumed``). ``wanted`` is the id asked for ("" when none was)."""

    wanted: str
    chosen: SessionInfo | None = None
    messages: int = 0
    unresumed: Unresumed | None = None

    @property
    def taken(self) -> bool:
        """A session was taken up."""
        return self.unresumed is None


def resume_session(session: Session, wanted: str, *, choose: Choose | None = None) -> Resumption:
    """Take up the earlier session of this project that ``wanted`` names (an id or its start); without one, the
    session ``choose`` picks — the most recent one when there is no picker. ``session``: the running ``Session``
    (its agent, history and todo list)."""
    wanted = wanted.strip()
    history = session.history
    if history is None:
        return Resumption(wanted, unresumed=Unresumed.NO_HISTORY)
    own = session.session_id
    if wanted:
        # ``--resume ID`` in print mode runs under that same id: then the session takes up its own conversation
        chosen = find_session(history, wanted, exclude=None if own.startswith(wanted) else own)
        if chosen is None:
            return Resumption(wanted, unresumed=Unresumed.UNKNOWN_ID)
    else:
        sessions = list_sessions(history, exclude=own)
        if not sessions:
            return Resumption(wanted, unresumed=Unresumed.NO_EARLIER)
        chosen = sessions[0] if choose is None else choose(sessions)
        if chosen is None:
            return Resumption(wanted, unresumed=Unresumed.NOT_CHOSEN)
    return Resumption(wanted, chosen, restore(session, chosen))


def resumed_line(result: Resumption) -> str:
    """``Resumed session 8c1f2e3a (12 messages): fix the login bug`` (for a session taken up)."""
    chosen = result.chosen
    if chosen is None:
        raise ValueError(f"no session was taken up ({result.unresumed})")
    return f"Resumed session {chosen.id} ({result.messages} messages): {shorten(chosen.first_message, 60)}"
