"""The settings of context compaction (``compact:``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class CompactConfig(BaseModel):
    """Settings of context compaction (``compact:`` in settings.yaml)."""

    model_config = ConfigDict(extra="forbid")

    token_budget: int | None = Field(default=None, gt=0, le=10_000_000)
    """Compact when a request would exceed this many tokens; unset: 80% of the model's context window."""
    keep_recent_turns: int = Field(default=2, ge=1, le=1000)
    """Micro-compaction leaves tool outputs of the last N turns untouched."""
    tool_result_max_chars: int = Field(default=2000, ge=1, le=10_000_000)
    """Micro-compaction stubs older tool outputs longer than this many characters."""
    max_rounds: int = Field(default=3, ge=1, le=10)
    """At most this many summary rounds per compaction before falling back to snipping."""
    summary_max_tokens: int = Field(default=2048, ge=1, le=128_000)
    """Output limit of the summary call (also the room reserved for the summary when choosing the split)."""
    snip_keep: int = Field(default=4, ge=1, le=1000)
    """The snip fallback keeps the last N messages (more when needed to keep tool pairs and the last turn)."""
