"""The shell's words around what the memory flows did and why they failed: ``catcode memory clear``, ``forget``,
``edit``, ``move`` print what happened with the shell's undo command (``catcode memory revert``), and an error that
names a memory command names the shell's (``catcode memory list``, ``catcode memory log``). The slash commands word
the same results in ``memory/slash_words.py``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from catcode.errors import CatcodeError

if TYPE_CHECKING:
    from catcode.memory.report import Done
    from catcode.settings.paths import Paths

LISTER = "`catcode memory list`"


NOT_RECORDED = (
    "This change could not be recorded in git, so it cannot be undone yet (details in the log: catcode memory "
    "doctor checks the repository); the next memory change records it."
)
"""Said when a change was written but its commit failed."""


def undo_hint(commit: str | None) -> str:
    """`` Undo with `catcode memory revert <id>`.`` for a change that was recorded, else nothing."""
    return f" Undo with `catcode memory revert {commit[:7]}`." if commit else ""


def not_found(name: str) -> str:
    """No memory of that name, and how to see them."""
    return f"No memory named {name}. {LISTER} shows them."


def error_line(exc: CatcodeError) -> str:
    """A failure of a ``catcode memory`` command as the shell says it."""
    from catcode.memory.flows import NoSuchMemory
    from catcode.memory.versioning.changes import MergedChange, UnknownChange

    if isinstance(exc, NoSuchMemory):
        return not_found(exc.name)
    if isinstance(exc, UnknownChange):
        return f"No memory change '{exc.commit}'; list the changes with catcode memory log and use one of their ids"
    if isinstance(exc, MergedChange):
        return (
            f"Change {exc.short} '{exc.subject}' joined the changes of two machines; undo those changes one by one "
            "instead (catcode memory log lists them)"
        )
    return str(exc)


def said(result: Done) -> str:
    """What a flow did, then how to undo it from the shell."""
    from catcode.memory.report import done_text

    return done_text(result) + undo_hint(result.commit)


def path_summary(paths: Paths) -> str:
    """Where memory lives, for ``catcode memory path``."""
    return "\n".join(
        [
            f"memory root:   {paths.memory_root}",
            f"user scope:    {paths.user_memory}",
            f"project scope: {paths.project_memory}",
            f"history:       {paths.history_file}",
        ]
    )
