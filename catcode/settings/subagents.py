"""``SubagentSettings``: settings under ``subagents:`` (pure pydantic, imported with the settings at start-up)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class SubagentSettings(BaseModel):
    """How the ``task`` tool runs subagents."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    """Offer the task tool (subagents) to the model."""
    max_parallel: int = Field(3, ge=1, le=16)
    """How many subagents run at the same time when one reply starts several; the rest wait their turn."""
    max_tool_rounds: int = Field(30, ge=1, le=200)
    """How many tool rounds one subagent may take before it has to answer."""
