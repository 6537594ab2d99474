"""What every ``catcode memory ...`` command shares: the offline memory runtime (no provider), one-line errors with
the shell's words, and asking before a delete (``--yes``, or refused without a terminal)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import typer

from catcode.cli.launch import load
from catcode.cli.memory_words import error_line

if TYPE_CHECKING:
    from catcode.memory.runtime import MemoryRuntime


def ask_unless_yes(yes: bool, what: str, question: str) -> bool:
    """Ask ``question`` on the terminal unless ``--yes``; without a terminal refuse (``what``: "delete 3
    memories")."""
    from catcode.errors import CatcodeError

    if yes:
        return True
    if not sys.stdin.isatty():
        raise CatcodeError(f"Refusing to {what} without --yes (no terminal to ask on)")
    return typer.confirm(question, default=False)


def memory_errors() -> AbstractContextManager[None]:
    """Every failure becomes one line on stderr and exit 1 — 2 for a setup problem (bad settings), like the rest of
    catcode — and a traceback only with --debug; memory's messages name the shell's commands."""
    from catcode.cli.command_errors import command_errors

    return command_errors("memory_cli_failed", error_line)


def offline_runtime() -> Any:
    """The offline memory runtime (store and git history; no provider) for the current directory."""
    from catcode.memory.builder import build_memory_runtime

    settings, paths = load()
    return build_memory_runtime(settings, paths)


def with_runtime(body: Callable[[Any], None]) -> None:
    """Run ``body`` on the offline runtime, its failures worded as ``memory_errors`` says."""
    with memory_errors():
        body(offline_runtime())


def require_versioning(runtime: MemoryRuntime) -> None:
    """Refuse (one line, exit 1) when memory versioning is off: log, diff and revert need git."""
    from catcode.errors import CatcodeError

    if not runtime.git.available:
        raise CatcodeError(runtime.git.warning)
