"""``catcode memory ...``: offline memory commands (no API key, no model): list, show, search, recent, status,
forget, edit, move, clear, path, log, diff, revert, doctor. Plain text on stdout so it pipes well; an error is one
line on stderr, exit 1 (exit 2 when the settings are invalid). The commands that only read never write anything
(nor commit); the flows are shared with the slash commands and return data (``memory/flows.py``,
``memory/edit.py``, ``memory/status.py``, ``memory/revert_tool.py``), worded with ``memory_words.py`` and the text
of ``memory/report.py`` that names no command.

This module is the typer sub-app, its commands registered in the order ``catcode memory --help`` lists them: those
that look in ``memory_show_cli.py``, those that change memories (and their history) in ``memory_change_cli.py``,
what they share in ``memory_offline.py``."""

from __future__ import annotations

import typer

from catcode.cli.memory_change_cli import clear, diff, edit, forget, log_changes, move, revert
from catcode.cli.memory_show_cli import doctor, list_memories, path, recent, search, show, status
from catcode.cli.memory_upkeep_cli import upkeep

memory_app = typer.Typer(
    name="memory", help="Inspect and manage memories offline (no API key needed).", no_args_is_help=True
)
memory_app.command("list")(list_memories)
memory_app.command("show")(show)
memory_app.command("status")(status)
memory_app.command("forget")(forget)
memory_app.command("edit")(edit)
memory_app.command("move")(move)
memory_app.command("clear")(clear)
memory_app.command("path")(path)
memory_app.command("log")(log_changes)
memory_app.command("diff")(diff)
memory_app.command("revert")(revert)
memory_app.command("doctor")(doctor)
memory_app.command("search")(search)
memory_app.command("recent")(recent)
memory_app.command("upkeep", hidden=True)(upkeep)
