"""Memory at a glance, for the line a session starts with and ``/status``: how many memories this project sees and
how large their indexes are — counted from the folders ``Paths`` names, without reading or parsing a memory (the
line is drawn before the prompt, before any of the memory package is imported)."""

from __future__ import annotations

import os
from pathlib import Path

INDEX = "MEMORY.md"


def glance(*folders: Path) -> tuple[int, int]:
    """``(memories, index bytes)`` over the scope ``folders`` (a missing one counts nothing)."""
    count = size = 0
    for folder in folders:
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.name == INDEX:
                        size += entry.stat().st_size
                    elif entry.name.endswith(".md") and not entry.name.startswith(".") and entry.is_file():
                        count += 1
        except OSError:
            continue
    return count, size


def glance_line(folders: tuple[Path, ...], enabled: bool = True) -> str:
    """``Memory: 12 memories, index 1.4 KB`` (or that memory is off, or empty so far)."""
    if not enabled:
        return "Memory: off (memory.enabled is false)"
    count, size = glance(*folders)
    if not count:
        return "Memory: on, nothing remembered yet"
    shown = f"{size / 1024:.1f} KB" if size >= 1024 else f"{size} bytes"
    return f"Memory: {count} {'memory' if count == 1 else 'memories'}, index {shown}"
