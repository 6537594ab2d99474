"""How ``catcode doctor`` and ``catcode config`` word the fence: what commands cannot read, which variables they
do not get, the programs catcode runs for itself and where they were found."""

from __future__ import annotations

import os
from pathlib import Path

from catcode import programs
from catcode.sandbox.fence import Fence
from catcode.sandbox.hidden import CREDENTIAL_STORES


def shown(path: Path) -> str:
    """``~/.ssh`` for a path in the home folder, else the path."""
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) and path != home else str(path)


def hidden_lines(fence: Fence) -> list[str]:
    """What commands cannot read, what is shown again inside it, and what else would be hidden if present."""
    cover = fence.hidden()
    now = [*cover.folders, *cover.files]
    lines = [
        "hidden now: " + (", ".join(shown(p) for p in sorted(now)) or "nothing"),
    ]
    if cover.shown:
        lines.append("shown again inside them: " + ", ".join(shown(p) for p in cover.shown))
    absent = [name for name in CREDENTIAL_STORES if not os.path.lexists(Path.home() / name)]
    if absent:
        lines.append("hidden too when they exist: " + ", ".join(f"~/{name}" for name in absent))
    return lines


def withheld_line(fence: Fence) -> str:
    """The variables of this environment that commands do not get."""
    from catcode.sandbox.environment import withheld

    names = withheld(os.environ, fence.settings.env)
    return "environment variables withheld now: " + (", ".join(names) or "none")


def program_lines() -> list[str]:
    """Where each program catcode runs for itself was found (and what was passed over)."""
    return [programs.lookup(name).describe() for name in ("bwrap", "git", programs.SHELLS[0])]
