"""The flows that change memories for a person — clear, forget, move, and what an edit did (``edit.py``) — as
data: each asks through a callback that gets a typed question, makes the change as one commit, and returns a small
result (what happened, to which memory, in which scope, the commit an undo names, or why nothing happened). The
front door (``service.py``) runs them for every front end, which words questions and results with ``words.py``
(the sentences that name no command, and its own voice around them). A memory that is not there is
``NoSuchMemory``, which each front end completes with the command that lists them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum

from catcode.errors import CatcodeError
from catcode.memory.store.models import MemoryEntry, MemoryType, Scope
from catcode.memory.store.store import MemoryStore
from catcode.text import flatten

Located = tuple[MemoryEntry, Scope]
SCOPE_WORDS = {"user": Scope.USER, "project": Scope.PROJECT}
"""What ``move`` takes as its target: user (all projects) or project (this project)."""


class Unchanged(StrEnum):
    """Why a flow changed nothing."""

    NO_MEMORIES = "no memories"
    DECLINED = "declined"  # the person said no when asked
    SAME_TEXT = "same text"  # an edit saved the memory as it was


class NoSuchMemory(CatcodeError):
    """No memory has that name; the message says so, a front end adds how to list them."""

    def __init__(self, name: str) -> None:
        super().__init__(f"No memory named {name}.")
        self.name = name


class InvalidMemory(CatcodeError):
    """The fields of a write do not make a memory: the message is the seed's own text for the model's
    ``memory_write`` (``NAME_REQUIRED``, ``TYPE_INVALID``, or why the name is refused), which every writer gives."""


class UnknownScope(CatcodeError):
    """``move`` was given somewhere that is not user or project."""

    def __init__(self, given: str) -> None:
        super().__init__("Say where to: user (all projects) or project (this project)")
        self.given = given


@dataclass(frozen=True)
class ScopeCounts:
    """How many memories each scope holds (of those a flow is about)."""

    user: int = 0
    project: int = 0

    @classmethod
    def of(cls, items: Iterable[Located]) -> ScopeCounts:
        """The counts of ``items`` (memory, scope) pairs."""
        scopes = [scope for _, scope in items]
        return cls(user=scopes.count(Scope.USER), project=scopes.count(Scope.PROJECT))

    @property
    def total(self) -> int:
        """Both scopes together."""
        return self.user + self.project

    def of_scope(self, scope: Scope) -> int:
        """The count of ``scope``."""
        return self.user if scope is Scope.USER else self.project


@dataclass(frozen=True)
class ClearQuestion:
    """Asked before every memory is deleted: how many, per scope; ``versioned``: whether an undo is possible."""

    counts: ScopeCounts
    versioned: bool


@dataclass(frozen=True)
class Cleared:
    """What ``clear_memories`` did: ``deleted`` memories (``counts`` per scope, the ones there were), one commit."""

    counts: ScopeCounts
    deleted: int = 0
    commit: str | None = None
    unchanged: Unchanged | None = None  # NO_MEMORIES or DECLINED: nothing was deleted


@dataclass(frozen=True)
class ForgetQuestion:
    """Asked before one memory is deleted: which one (its type, scope and description)."""

    name: str
    type: MemoryType
    scope: Scope
    description: str  # on one line
    versioned: bool


@dataclass(frozen=True)
class Forgotten:
    """What ``forget_memory`` did to ``name`` (of ``scope``)."""

    name: str
    scope: Scope
    commit: str | None = None
    unchanged: Unchanged | None = None  # DECLINED: it was kept


@dataclass(frozen=True)
class Moved:
    """What ``move_memory`` did: ``name`` is now for ``after`` (it was for ``before``)."""

    name: str
    before: Scope
    after: Scope
    commit: str | None = None


@dataclass(frozen=True)
class EditRejected:
    """The edited copy of ``name`` is not a valid memory file: ``problem`` says why."""

    name: str
    problem: str


@dataclass(frozen=True)
class Edited:
    """What ``edit_memory`` did: saved ``name`` (``redacted`` secrets removed) as ``commit``, or nothing."""

    name: str
    redacted: int = 0
    commit: str | None = None
    unchanged: Unchanged | None = None  # SAME_TEXT: the editor saved it as it was


ConfirmClear = Callable[[ClearQuestion], bool]
ConfirmForget = Callable[[ForgetQuestion], bool]


def clear_memories(
    store: MemoryStore, versioned: bool, confirm: ConfirmClear, *, mark: Callable[[], object] | None = None
) -> Cleared:
    """The one "clear every memory" flow (``/memory clear``, ``catcode memory clear``): ask ``confirm``, delete
    every memory as one change, then ``mark`` (``cursor.mark_cleared`` over the memory root's projects) so that
    conversation said before the clear — in any project, a session still open included — is never saved
    afterwards."""
    counts = ScopeCounts.of(store.located())
    if not counts.total:
        if mark is not None:
            mark()  # nothing to delete, but what was said so far is still not to be saved
        return Cleared(counts, unchanged=Unchanged.NO_MEMORIES)
    if not confirm(ClearQuestion(counts, versioned)):
        return Cleared(counts, unchanged=Unchanged.DECLINED)
    deleted = store.clear(why="clear")
    commit = store.last_commit
    if mark is not None:
        mark()
    return Cleared(counts, deleted=deleted, commit=commit)


def forget_memory(
    store: MemoryStore, name: str, versioned: bool, confirm: ConfirmForget, *, why: str = "forget"
) -> Forgotten:
    """The one "forget one memory" flow (``/memory forget NAME``, ``catcode memory forget NAME``, the MCP server's
    ``memory_forget``): ask, delete it as one change (``why`` heads its commit). ``NoSuchMemory`` when there is no
    such memory."""
    name = name.strip()
    entry, scope = store.get(name), store.scope_of(name)
    if entry is None or scope is None:
        raise NoSuchMemory(name)
    question = ForgetQuestion(name, entry.type, scope, flatten(entry.description), versioned)
    if not confirm(question):
        return Forgotten(name, scope, unchanged=Unchanged.DECLINED)
    store.delete(name, why=why)
    return Forgotten(name, scope, commit=store.last_commit)


def move_memory(store: MemoryStore, name: str, where: str) -> Moved:
    """``/memory move NAME user|project``: keep a memory for all projects or for this project only.
    ``UnknownScope`` for another ``where``, ``NoSuchMemory`` when there is no such memory."""
    target = SCOPE_WORDS.get(where.strip().lower())
    if target is None:
        raise UnknownScope(where)
    name = name.strip()
    before = store.scope_of(name)
    if before is None:
        raise NoSuchMemory(name)
    counts = store.move(name, target, why="move")
    return Moved(name, before, target, counts.commit)
