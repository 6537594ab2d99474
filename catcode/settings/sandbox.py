"""``sandbox:`` settings: how the bash tool's commands are fenced."""

from __future__ import annotations

import os
from pathlib import Path
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
    hidden: list[str] = Field(default_factory=list)
    """More files and folders commands cannot read (``~`` expands; a relative path is in the project), beside the
    credential stores and catcode's own folders hidden by default."""
    readable: list[str] = Field(default_factory=list)
    """Hidden paths given back to commands: a whole default (``~/.aws``) or a path inside a hidden folder
    (``~/.ssh/known_hosts``)."""
    env: list[str] = Field(default_factory=list)
    """Environment variables passed to commands although their name or value looks secret (by name; ``*``
    matches any text): ``[GITHUB_TOKEN, "AWS_*"]``."""

    def writable_folders(self, project_root: Path, added: list[Path]) -> list[Path]:
        """The project, then each ``writable`` folder and each ``added`` one (``permissions.additional_dirs``) that
        exists, resolved (``~`` expands; a relative one is in the project)."""
        folders = [project_root.resolve()]
        for raw in [*self.writable, *map(str, added)]:
            path = Path(os.path.expanduser(raw))
            path = (path if path.is_absolute() else project_root / path).resolve()
            if path.is_dir() and path not in folders:
                folders.append(path)
        return folders

    @field_validator("mode", "network", mode="before")
    @classmethod
    def _yaml_switch(cls, value: object) -> object:
        # YAML 1.1 reads a bare ``off``/``on`` as false/true: ``network: off`` must mean "off", not an error.
        if value is False:
            return "off"
        if value is True:
            return "on"
        return value
