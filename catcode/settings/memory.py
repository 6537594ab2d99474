"""The settings of memory (``memory:``) and of the conversation log it learns from (``history:``)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


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
    """Seconds the memory work of an exit may take — capture, then the session summary with what is left — in the
    process it runs in after the exit (an interactive exit never waits for it; what is left is done at the next
    start); for ``catcode -p``, also how long the run waits at its end for a background review still going (at most
    600)."""
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
    to that message for the model: ``on`` or ``off``."""
    auto_recall_max_items: int = Field(default=60, ge=1, le=200)
    """At most this many memories (or past turns) are attached to one message (``auto_recall_max_chars`` usually ends
    the list first)."""
    auto_recall_min_score: float = Field(default=0.5, ge=0, le=1000, allow_inf_nan=False)
    """Search score (BM25) below which a match is not attached. Whether anything is attached at all is the gate's
    to decide (``auto_recall_min_coverage``); once it has, weaker matches ride along within the character budget:
    the answer often ranks below the first few."""
    auto_recall_min_coverage: float = Field(default=0.12, ge=0, le=1, allow_inf_nan=False)
    """Nothing is attached unless the best match holds at least this share of the message's words, each weighed by
    its rarity in memory (0 to 1): a message about something memory has never heard of gets nothing."""
    auto_recall_max_chars: int = Field(default=6000, ge=200, le=100_000)
    """Character budget of everything attached to one message: the best matches go whole, in order, while they fit
    (none longer than a quarter of it); the one that no longer fits is cut to the room left."""
    auto_recall_timeout_ms: int = Field(default=1000, ge=1, le=10_000)
    """Recall starts as soon as your message is known (at launch in ``-p``, on Enter in a session), so it has the
    time the first request waits anyway; once the request is ready it waits at most this much longer for recall.
    Slower, the message is sent without it and the dim line (or print mode's ``recall`` event) says so."""
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


class HistoryConfig(BaseModel):
    """Settings under ``history:`` for the conversation log and its compaction."""

    model_config = ConfigDict(extra="forbid")

    char_budget: int = Field(default=32_000, gt=0, le=100_000_000)
    """Compact history.jsonl once it holds more than this many characters."""
    keep_recent: int = Field(default=30, ge=0, le=1_000_000)
    """The newest lines compaction keeps verbatim (the processed ones: as many as fit in half of char_budget)."""
    tool_result_cap: int = Field(default=8_000, gt=0, le=10_000_000)
    """Tool results longer than this many characters are truncated (with a marker) in the log."""
