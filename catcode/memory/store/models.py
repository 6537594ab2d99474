"""The memory pipeline's data: types, entries, candidates, operations, reports and ``MemoryConfig``.

Entries, candidates and operations are frozen: the store hands out cached objects, and a caller
mutating one must never change what the store (or another caller) sees. Use ``model_copy(update=...)``."""

from __future__ import annotations

from datetime import date
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class Scope(StrEnum):
    """Where a memory lives: the user's own folder (seen in every project) or the current project's folder."""

    USER = "user"
    PROJECT = "project"

    @property
    def label(self) -> str:
        """How the scope is shown to the person: "all projects" or "this project"."""
        return "all projects" if self is Scope.USER else "this project"


class MemoryType(StrEnum):
    """What a memory is about (the seed's four kinds, aligned with Claude Code)."""

    USER = "user"
    FEEDBACK = "feedback"
    PROJECT = "project"
    REFERENCE = "reference"

    @property
    def scope(self) -> Scope:
        """Where a NEW memory of this type goes by default: user and feedback memories follow the person, project
        and reference ones stay with the project. Once written, a memory stays in its scope whatever its type
        becomes (only an explicit move changes it), so no write can take a memory away from other projects."""
        return Scope.USER if self in (MemoryType.USER, MemoryType.FEEDBACK) else Scope.PROJECT


_FROZEN = ConfigDict(frozen=True)


class MemoryEntry(BaseModel):
    """One stored memory; the file is ``<name>.md`` in its scope's folder."""

    model_config = _FROZEN

    name: str
    description: str
    type: MemoryType
    content: str
    created_at: date = Field(default_factory=date.today)
    updated_at: date = Field(default_factory=date.today)

    @property
    def summary(self) -> MemorySummary:
        """Name and description only (what the extractor is shown)."""
        return MemorySummary(name=self.name, description=self.description)


class MemorySummary(BaseModel):
    """Name + description, shown to the extractor so it does not re-extract known facts."""

    model_config = _FROZEN

    name: str
    description: str


class CandidateMemory(BaseModel):
    """A fact the extractor proposes to remember."""

    model_config = _FROZEN

    type: MemoryType
    name: str
    description: str
    content: str

    def to_entry(self, today: date, *, name_override: str | None = None) -> MemoryEntry:
        """The entry this candidate becomes (``name_override``: the target of an update)."""
        return MemoryEntry(
            name=name_override or self.name,
            description=self.description,
            type=self.type,
            content=self.content,
            created_at=today,
            updated_at=today,
        )


class MemoryAction(StrEnum):
    """What the consolidator decided for one candidate."""

    ADD = "add"
    UPDATE = "update"
    SKIP = "skip"


class MemoryOperation(BaseModel):
    """One consolidation decision; ``target_name`` names the existing memory an UPDATE replaces."""

    model_config = _FROZEN

    action: MemoryAction
    target_name: str | None = None
    entry: CandidateMemory | None = None


class AppliedCounts(BaseModel):
    """What ``MemoryStore.apply`` (or a single write) did. The name lists back the counts for reports."""

    added: int = 0
    updated: int = 0
    skipped: int = 0
    deleted: int = 0
    redacted: int = 0
    """How many secrets the redactor replaced in what was written."""
    added_names: list[str] = Field(default_factory=list)
    updated_names: list[str] = Field(default_factory=list)
    skipped_names: list[str] = Field(default_factory=list)
    renamed: dict[str, str] = Field(default_factory=dict)
    """New memories written under another name because theirs was taken in another scope: asked → written."""
    unchanged_names: list[str] = Field(default_factory=list)
    """Memories the batch added or updated whose files already held exactly that: nothing was written for them."""
    commit: str | None = None
    """The id of the change that recorded the batch (None: nothing changed, or versioning is off)."""
    unversioned: str = ""
    """Why the files the batch wrote (they are on disk) could not be recorded in memory's history: the commit
    failed or did not record them ("" when it did, or versioning is off). ``catcode memory doctor --fix`` repairs
    the repository; the next write then records them."""
    superseded: bool = False
    """Nothing was applied: what the batch came from was dealt with meanwhile (a ``clear`` passed the cursor)."""


class ConsolidationReport(BaseModel):
    """The outcome of one pass of the pipeline, printed by ``/memory`` and logged at session end."""

    candidates_found: int
    added: list[str] = Field(default_factory=list)
    updated: list[str] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list)
    skipped_reason: str = ""
    redacted: int = 0
    complete: bool = True
    """False when a reply of the model was empty, malformed or cut off. The manager never applies such a reply
    (``UnreadableReply``), so a report that reaches a person is complete."""
    renamed: dict[str, str] = Field(default_factory=dict)
    """Memories saved under another name because theirs was taken in another scope (see ``AppliedCounts``)."""
    commit: str | None = None
    """The change that recorded what was added and updated: what ``/memory revert <id>`` undoes."""
