"""The todo list drawn as a checklist: ``☐`` pending, ``▶`` in progress (bold), ``✔`` completed (dim, struck
through); plain ``[ ]``/``[>]``/``[x]`` where the terminal does not speak UTF-8."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text

if TYPE_CHECKING:
    from catcode.session.todos import TodoItem

UNICODE = {"pending": ("☐", ""), "in_progress": ("▶", "bold"), "completed": ("✔", "dim strike")}
ASCII = {"pending": ("[ ]", ""), "in_progress": ("[>]", "bold"), "completed": ("[x]", "dim strike")}


def checklist(items: Sequence[TodoItem], *, unicode: bool | None = None) -> Text:
    """``  ☐ Write the tests`` per item (``items``: the model's todo list)."""
    if unicode is None:
        unicode = (getattr(sys.stdout, "encoding", "") or "").lower().replace("-", "").startswith("utf")
    marks = UNICODE if unicode else ASCII
    out = Text()
    for item in items:
        mark, style = marks.get(item.status, marks["pending"])
        out.append(f"  {mark} ", style="cyan" if item.status == "in_progress" else "")
        out.append(f"{item.content}\n", style=style)
    if not items:
        out.append("  (the todo list is empty)\n", style="dim")
    out.rstrip()
    return out
