"""The REPL's words around what the memory flows did (``flows.py``, ``edit.py``): the line each of ``/memory
clear``, ``forget``, ``edit`` and ``move`` prints, with the undo command the REPL has (``/memory revert``), and
a missing memory's error naming ``/memory list``. ``catcode memory`` words the same results in
``cli/memory_words.py``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from catcode.memory.flows import NoSuchMemory
from catcode.memory.report import done_text

if TYPE_CHECKING:
    from catcode.memory.report import Done

LISTER = "/memory list"


def undo_hint(commit: str | None) -> str:
    """`` Undo with /memory revert <id>.`` for a change that was recorded, else nothing."""
    return f" Undo with /memory revert {commit[:7]}." if commit else ""


def not_found(name: str) -> str:
    """No memory of that name, and how to see them."""
    return f"No memory named {name}. {LISTER} shows them."


def error_line(exc: Exception) -> str:
    """A memory flow's failure as the REPL says it (a missing memory names ``/memory list``)."""
    return not_found(exc.name) if isinstance(exc, NoSuchMemory) else str(exc)


def said(result: Done) -> str:
    """What a flow did, then how to undo it: ``Forgot NAME (this project). Undo with /memory revert abc1234.``"""
    return done_text(result) + undo_hint(result.commit)
