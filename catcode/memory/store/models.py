"""The memory pipeline's data: types, entries, candidates, operations, reports and ``MemoryConfig``.

Entries, candidates and operations are frozen: the store hands out cached objects, and a caller
mutating one must never change what the store (or another caller) sees. Use ``model_copy(update=...)``."""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


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


class MemoryConfig(BaseModel):
    """Settings under ``memory:``."""

    model_config = ConfigDict(extra="forbid")

    dir: Path | None = None
    """Memory root; None means ``<CATCODE_HOME>/memory`` (resolved by the caller). Not settable by project files."""
    extract_min_messages: int = Field(default=4, ge=1, le=10_000)
    """Run extraction only when at least this many new messages are waiting."""
    extract_max_tokens: int = Field(default=2048, gt=0, le=128_000)
    """Output token limit of the extraction and consolidation calls."""
    max_injected_summaries: int = Field(default=30, ge=0, le=1000)
    """At most this many memories (name + description) are injected into each request, shared by the two scopes."""
    enabled: bool = True
    """Turn the whole memory pipeline (injection, tools, extraction) on or off."""
    model: str | None = Field(default=None, min_length=1, max_length=200)
    """A cheaper model for the memory calls; None uses the main model."""
    exit_timeout: float = Field(default=60.0, gt=0, le=600, allow_inf_nan=False)
    """Seconds the whole exit may spend on memory — capture, then the session summary with what is left — before
    catcode exits anyway (at most 600)."""
    dream_min_lines: int = Field(default=50, ge=1, le=100_000)
    """Start a background Dream once this many history lines are unprocessed."""
    dream_max_tokens: int = Field(default=2048, gt=0, le=128_000)
    """Output token limit of each Dream call."""
    user_id: str | None = Field(default=None, min_length=1, max_length=200)
    """Whose user-scope memories to use; None means the OS login name."""
    recent_tokens: int = Field(default=400, ge=0, le=100_000)
    """Token budget of the "## Recent work" block injected after the memory index."""
    recent_enabled: bool = True
    """Inject the "## Recent work" block at all."""
    search_retention_days: int | None = Field(default=None, ge=0, le=100_000)
    """Keep past conversation turns searchable for this many days (dropped from the index and from
    history-archive.jsonl after that; at most 100000, some 270 years: a date further back does not exist); None
    keeps every turn."""
    project_key: Literal["path", "git-remote"] = "path"
    """What names a project's memory folder: ``path`` (its folder's name and a hash of its path on this machine)
    or ``git-remote`` (its repository's name and a hash of its ``origin`` URL: the same on every machine and for
    everyone with a clone, so that sync brings a project's memories together). Only your own settings may set it."""
    sync: Literal["off", "manual", "auto"] = "manual"
    """Sync through the memory repository's git remote (``catcode memory remote add URL``): ``off`` never (the
    ``sync`` command refuses), ``manual`` only by ``catcode memory sync``, ``auto`` also in the background at
    start and after the exit capture, never holding up the prompt or the exit."""

    # -- per-turn recall (catcode/memory/auto_recall.py, docs/recall.md) --
    auto_recall: bool = True
    """Before each request that starts from your message, search memory with it and attach the best few matches
    (not already in the memory index) to that message for the model: ``on`` or ``off``."""
    auto_recall_max_items: int = Field(default=5, ge=1, le=50)
    """At most this many memories (or past turns) are attached to one message."""
    auto_recall_min_score: float = Field(default=6.0, ge=0, le=1000, allow_inf_nan=False)
    """Search score (BM25) below which nothing is attached: a weak match is noise that costs tokens."""
    auto_recall_max_chars: int = Field(default=4000, ge=200, le=100_000)
    """Character budget of everything attached to one message (each item is cut to fit)."""
    auto_recall_timeout_ms: int = Field(default=50, ge=1, le=10_000)
    """A recall slower than this is given up for that message (sent without it, the reason logged)."""
    auto_recall_subagents: bool = False
    """Also recall for the task tool's subagents (by default only the conversation with you gets recall)."""
    search_past_sessions: bool = True
    """Per-turn recall may attach turns of this project's past conversations, not only saved memories."""

    @field_validator("sync", mode="before")
    @classmethod
    def _off_is_not_false(cls, value: object) -> object:
        """YAML reads a bare ``off`` as false: ``sync: off`` means "off"."""
        return "off" if value is False else value

    @field_validator("auto_recall", mode="before")
    @classmethod
    def _on_off(cls, value: object) -> object:
        """``auto_recall: on | off`` (YAML 1.1 reads bare on/off as booleans already; quoted ones too)."""
        if isinstance(value, str) and value.strip().lower() in ("on", "off"):
            return value.strip().lower() == "on"
        return value
