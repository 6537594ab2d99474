"""``Checkpointer``: one session's checkpoints.

Each message the person sends starts a turn (USER_PROMPT_SUBMIT). The first tool call of the turn that may change
the project's files — a file tool, bash, an MCP tool that is not read-only, a subagent's — calls ``before_change``
just before it runs (outside any sandbox the command runs in): that takes the turn's checkpoint, its one snapshot.
The turn's end is recorded with the files its file tools wrote and whether a command ran; what it changed is
counted at the next snapshot (``store.py``), which also tells a later restore what was changed outside catcode.

``rewind_code`` puts the files back as they were just before a message (the first checkpoint of that turn or a later
one: nothing changed in between); ``rewind_conversation`` drops that message and everything after it. Both are
undoable: the code through the checkpoint a restore takes first, the conversation through the messages it dropped."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from catcode.checkpoints.restore import RestorePlan, plan_restore
from catcode.checkpoints.shadow import CheckpointError
from catcode.checkpoints.store import Checkpoint, CheckpointStore
from catcode.conversation.messages import Message, Role
from catcode.hooks.bus import CONTINUE, HookContext, HookResult
from catcode.log import get_logger
from catcode.session.reopen import HistoryMarkers
from catcode.tools.facts import PROJECT_FILE_TOOLS

if TYPE_CHECKING:
    from pydantic import BaseModel

    from catcode.session.agent import Agent
    from catcode.session.reopen import HistoryMarkers
    from catcode.tools.base import Tool

log = get_logger(__name__)


@dataclass
class Turn:
    """A message the person sent in this session."""

    number: int
    text: str
    message: Message | None = None  # the stored message (None when it joined the previous one)


class Checkpointer:
    """Takes a session's checkpoints and restores them."""

    def __init__(self, store: CheckpointStore, session_id: str, agent: Agent, notify: Callable[[str], None]) -> None:
        self.store, self.session_id, self.agent, self.notify = store, session_id, agent, notify
        self.turns: list[Turn] = []
        self.current: Checkpoint | None = None  # this turn's checkpoint, once taken
        self.undo_messages: list[Message] | None = None  # the conversation before the last conversation rewind
        self._lock = threading.Lock()  # overlapping tool calls (subagents) may all be first
        self._failed = False
        self._written: set[str] = set()  # this turn's files written by file tools (relative to the project)
        self._ran = False  # a command ran in this turn
        self._undo_turns: list[Turn] = []
        self.markers: HistoryMarkers | None = None  # a resumed session sees the rewound conversation

    # -- taking checkpoints ------------------------------------------------------------------------------------

    def submitted(self, context: HookContext) -> HookResult:
        """USER_PROMPT_SUBMIT: a new turn."""
        number = self.turns[-1].number + 1 if self.turns else 1
        self.turns.append(Turn(number, context.prompt))
        with self._lock:
            self.current, self._failed, self._written, self._ran = None, False, set(), False
        return CONTINUE

    def stored(self, message: Message) -> None:
        """Agent listener: the person's message of the current turn, as stored."""
        if self.turns and self.turns[-1].message is None and message.role is Role.USER and not message.is_tool_result:
            self.turns[-1].message = message

    def before_change(self, tool: Tool, args: BaseModel) -> None:
        """``tool`` is about to change files with ``args``: the turn's checkpoint, unless it was taken. While the
        session's preparation is still staging the project, a file tool does not wait for it: the file it writes is
        saved and the checkpoint made once the preparation is done (``store.defer``); anything else waits for it. A
        failure is one line (``notify`` shows it at once: before the tool changes anything, so that the person can
        stop the turn); the tool still runs."""
        with self._lock:
            writes = tool.name in PROJECT_FILE_TOOLS and getattr(args, "file_path", None) is not None  # one file
            path = self._note(tool, args)
            paths = [path] if path is not None else []
            current = self.current
            if self._failed or (current is not None and current.commit):
                return
            try:
                if current is not None:  # deferred: save this file too, or make it now
                    if writes and all(self.store.keep(current, p) for p in paths):
                        return
                    self.store.make()
                    if not current.commit:
                        raise CheckpointError("it could not be made from the files saved for it")
                    return
                turn = self.turns[-1] if self.turns else Turn(0, "")
                deferred = self.store.defer(self.session_id, turn.number, turn.text, paths) if writes else None
                self.current = deferred or self.store.take(self.session_id, turn.number, turn.text)
            except Exception as exc:
                self._failed = True
                log.warning("checkpoint_failed", exc_info=True)
                self.notify(f"No checkpoint for this turn (its changes cannot be rewound): {exc}")

    def end_turn(self) -> None:
        """The turn is over: record its end (what it changed is counted at the next snapshot)."""
        with self._lock:
            current, self.current = self.current, None
            written, ran = self._written, self._ran
        if current is None:
            return
        try:
            self.store.finish(current, written, ran=ran)
        except Exception:
            log.warning("checkpoint_finish_failed", exc_info=True)

    def _note(self, tool: Tool, args: BaseModel) -> str | None:
        """Remember what the turn does that the count of its changes uses: the file a file tool writes (in the
        project: returned, relative), or that a command ran."""
        if tool.name not in PROJECT_FILE_TOOLS:
            self._ran = True
            return None
        root = os.path.realpath(self.store.repo.work_tree)
        path = os.path.realpath(Path(root, os.path.expanduser(str(getattr(args, "file_path", "")))))
        if not path.startswith(root + os.sep):
            return None
        relative = Path(path).relative_to(root).as_posix()
        self._written.add(relative)
        return relative

    # -- rewinding ---------------------------------------------------------------------------------------------

    def in_conversation(self, turn: Turn) -> bool:
        """Is this turn's message still in the conversation (not compacted away, not rewound)?"""
        return turn.message is not None and any(m is turn.message for m in self.agent.messages)

    def code_target(self, turn: Turn) -> Checkpoint | None:
        """The files as they were just before ``turn``: its checkpoint or a later turn's (None: catcode changed
        nothing since)."""
        self.store.make()  # this turn's, if it is still pending
        mine = [c for c in self.store.all() if c.session == self.session_id and c.kind == "turn"]
        return next((c for c in mine if c.turn >= turn.number), None)

    def last_restore(self) -> Checkpoint | None:
        """The checkpoint taken before this session's last restore (restoring it undoes that restore)."""
        mine = [c for c in self.store.all() if c.session == self.session_id and c.kind == "rewind"]
        return mine[-1] if mine else None

    def plan(self, target: Checkpoint) -> RestorePlan:
        """What restoring ``target`` will change (a checkpoint of the files now is taken first)."""
        number = self.turns[-1].number if self.turns else 0
        return plan_restore(self.store, target, self.session_id, number)

    def rewind_conversation(self, turn: Turn) -> str:
        """Drop ``turn``'s message and everything after it; the message's text (to edit and send again)."""
        index = next(i for i, m in enumerate(self.agent.messages) if m is turn.message)
        self.undo_messages, self._undo_turns = list(self.agent.messages), list(self.turns)
        self._mark("rewound", index)
        self.agent.replace_messages(self.agent.messages[:index])
        self.turns = [t for t in self.turns if t.number < turn.number]
        return turn.text

    def undo_conversation(self) -> bool:
        """Put back the conversation the last conversation rewind dropped; False when there is none."""
        if self.undo_messages is None:
            return False
        messages, self.undo_messages = self.undo_messages, None
        self._mark("unrewound")
        self.agent.replace_messages(messages)
        self.turns = self._undo_turns
        return True

    def _mark(self, what: str, *args: int) -> None:
        if self.markers is None:
            return
        try:
            getattr(self.markers, what)(*args)
        except Exception:
            log.warning("rewind_marker_failed", exc_info=True)
