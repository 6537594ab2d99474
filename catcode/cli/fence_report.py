"""How ``catcode doctor`` and ``catcode config`` word the fence: what commands cannot read, which variables they
do not get, the programs catcode runs for itself and where they were found."""

from __future__ import annotations

import os
from pathlib import Path

from catcode import programs
from catcode.sandbox.fence import Fence


def shown(path: Path) -> str:
    """``~/.ssh`` for a path in the home folder, else the path."""
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) and path != home else str(path)


def hidden_lines(fence: Fence) -> list[str]:
    """What commands cannot read, what is shown again inside it, and what else would be hidden if it existed."""
    cover = fence.hidden()
    named, _, readable = fence.hiding()
    now = sorted([*cover.folders, *cover.files])
    lines = ["hidden now: " + (", ".join(shown(p) for p in now) or "nothing")]
    if cover.shown:
        lines.append("shown again inside them: " + ", ".join(shown(p) for p in cover.shown))
    given = [p.absolute() for p in readable]
    later = [p for p in named if not os.path.lexists(p) and not any(p.absolute().is_relative_to(g) for g in given)]
    if later:
        lines.append("hidden too when they exist: " + ", ".join(shown(p) for p in later))
    return lines


def withheld_line(fence: Fence) -> str:
    """The variables of this environment that commands do not get."""
    from catcode.sandbox.environment import withheld

    names = withheld(os.environ, fence.settings.env)
    return "environment variables withheld now: " + (", ".join(names) or "none")


def program_lines() -> list[str]:
    """Where each program catcode runs for itself was found (and what was passed over)."""
    return [programs.lookup(name).describe() for name in ("bwrap", "git", programs.SHELLS[0])]
