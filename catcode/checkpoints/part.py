"""Checkpoints as a part of a session (``session.parts.SessionPart``): a checkpoint before each turn's first change
(the tool context asks for it), the turn's end recorded, ``/rewind``; and, from the start, in the background, the
shadow index brought up to date (so that the first turn's checkpoint only checks the files' times), then the old
checkpoints pruned. A file tool that comes before that work is done does not wait for it (``pending.py``: the file
is saved, the checkpoint made when the index is staged); a command waits for what remains of it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catcode.hooks.bus import HookEvent
from catcode.log import get_logger

if TYPE_CHECKING:
    from catcode.checkpoints.store import CheckpointStore
    from catcode.session.parts import SessionBuilder
    from catcode.session.session import Session

# Any: a slash-command registration hands the registry to the command module it imports when called, which types
# it: this module is shared wiring, and of the REPL it imports its own commands only (``tests/test_front_ends.py``).

log = get_logger(__name__)


class CheckpointsPart:
    """This session's ``Checkpointer``: everything is wired once the session exists (it needs the agent)."""

    def attach(self, builder: SessionBuilder) -> None:
        """Wire the checkpointer once the session exists."""
        builder.when_built(lambda session: self._built(session, builder))

    def _built(self, session: Session, builder: SessionBuilder) -> None:
        from catcode.checkpoints.session import Checkpointer
        from catcode.checkpoints.store import store_for

        settings, paths, agent, notify = session.settings.checkpoints, session.paths, session.agent, builder.notify
        if paths.project_root in (Path.home(), Path(paths.project_root.anchor)):
            notify(
                "Checkpoints are off: this folder is your home folder (or /), not a project; /rewind cannot undo here."
            )
            return
        store = store_for(paths.home, paths.project_key, paths.project_root, settings.max_file_mb)
        # A failed checkpoint is said through the agent's events, which print at once: ``notify`` may hold a line
        # until the turn is over, after the change the person might have stopped.
        checkpointer = Checkpointer(store, session.session_id, agent, agent.events.on_notice)
        if session.history is not None:
            from catcode.session.reopen import HistoryMarkers

            checkpointer.markers = HistoryMarkers(session.history)
        session.hooks.on(HookEvent.USER_PROMPT_SUBMIT, checkpointer.submitted)
        agent.listeners.append(checkpointer.stored)
        agent.turn_end_listeners.append(checkpointer.end_turn)
        session.context.before_change = checkpointer.before_change
        session.checkpoints = checkpointer

        def register(registry: Any) -> None:  # imported with the registry: print mode has none
            from catcode.checkpoints.command import register_rewind

            register_rewind(registry, checkpointer)

        session.slash_commands.append(register)
        if store.repo.available:
            prepare = _quietly(lambda: _prepare(store, settings.retention_days))
            store.preparing()  # until it has staged the project, a file tool's checkpoint does not wait for it
            threading.Thread(target=prepare, name="checkpoint-prepare", daemon=True).start()


def _prepare(store: CheckpointStore, retention_days: int) -> None:
    """The work of a session's start: the shadow index brought up to date (seeded from the project's git index the
    first time: ``borrow.py``), the objects borrowed from the project copied, then the old checkpoints pruned. A
    session that ends first leaves its git to finish (the next one waits for it, ``git_locks``)."""
    from catcode.checkpoints import borrow

    store.warm()
    borrow.copy(store.repo)
    store.prune(retention_days)


def _quietly(work: Callable[[], None]) -> Callable[[], None]:
    """``work`` on a background thread: a failure is logged (the first checkpoint will say it)."""

    def run() -> None:
        try:
            work()
        except Exception:
            log.warning("background_work_failed", exc_info=True)

    return run
