"""``sandbox:`` settings: how the bash tool's commands are fenced."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class SandboxSettings(BaseModel):
    """The fence around bash (bubblewrap on Linux). A project's files may tighten it; loosening it (mode off, the
    network on, more writable paths) needs the person's consent."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    mode: Literal["workspace-write", "read-only", "off"] = "workspace-write"
    """workspace-write: commands write only in the project, the session's temp folder, ``writable`` and
    ``permissions.additional_dirs`` (``.git/hooks``, ``.git/config`` and ``.cat-code/`` stay read-only); read-only:
    no writes at all; off: no fence (commands run with all your rights, as before)."""
    network: Literal["off", "on"] = "off"
    """off: no socket reaches any address, loopback and Unix sockets included; on: the network as outside."""
    writable: list[str] = Field(default_factory=list)
    """More folders commands may write to in workspace-write mode (``~`` expands)."""

    @field_validator("mode", "network", mode="before")
    @classmethod
    def _yaml_switch(cls, value: object) -> object:
        # YAML 1.1 reads a bare ``off``/``on`` as false/true: ``network: off`` must mean "off", not an error.
        if value is False:
            return "off"
        if value is True:
            return "on"
        return value
