"""``CheckpointSettings``: settings under ``checkpoints:`` (pure pydantic, imported with the settings at start-up)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class CheckpointSettings(BaseModel):
    """Snapshots of the project's files before each turn's first change, for ``/rewind`` and ``catcode rewind``."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    """Take a checkpoint before the first change of each turn (file tools and bash alike)."""
    retention_days: int = Field(30, ge=1, le=3650)
    """Checkpoints older than this many days are pruned at the start of a session."""
    max_file_mb: float = Field(5.0, gt=0, le=1024, allow_inf_nan=False)
    """Files larger than this (in MB) are left out of checkpoints; ``catcode checkpoints`` lists them."""
