"""``catcode memory ...``: memory from the shell, with no API key and no model. ``COMMANDS`` is the one table (the
order ``catcode memory --help`` lists them in); each command calls memory's front door (``memory/service.py``) and
words its result with ``memory/words.py`` in the shell's voice (``SHELL``: ``catcode memory revert``...).

Plain text on stdout so it pipes well; an error is one line on stderr, exit 1 (exit 2 when the settings are
invalid), a traceback only with --debug. The commands that only look never write anything (nor commit); those that
delete ask first unless ``--yes`` (refused without a terminal); each change is one commit ``revert`` undoes.
``serve`` starts the web view (``web/``), the one other front end this file launches; the web stack is imported
only then. Over 450 lines because every ``catcode memory`` command is here, with the import's questions (which
CLAUDE.md sections, a name that is taken, a memory for all projects): one file and one table per front end."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from catcode.cli.help_text import HelpGroup
from catcode.cli.launch import load
from catcode.cli.values import whole_number
from catcode.errors import CatcodeError
from catcode.text import shown_on

if TYPE_CHECKING:
    from catcode.memory.service import (
        Action,
        Answer,
        ClearQuestion,
        EditRejected,
        ForgetQuestion,
        ImportPlan,
        MemoryDoor,
        Offer,
        Step,
    )

DEFAULT_PORT = 8765


# -- what every command shares -----------------------------------------------------------------------------------


def memory_errors() -> AbstractContextManager[None]:
    """Every failure becomes one line on stderr and exit 1 — 2 for a setup problem (bad settings), like the rest of
    catcode — and a traceback only with --debug; memory's messages name the shell's commands."""
    from catcode.cli.command_errors import command_errors
    from catcode.memory.words import SHELL

    return command_errors("memory_cli_failed", SHELL.error_line)


def offline_door() -> MemoryDoor:
    """Memory's front door for the current directory, offline (store, git history and search; no model)."""
    from catcode.memory.service import MemoryDoor

    settings, paths = load()
    return MemoryDoor.offline(settings, paths)


def with_door(body: Callable[[MemoryDoor], object]) -> None:
    """Run ``body`` on the offline door, its failures worded as ``memory_errors`` says."""
    with memory_errors():
        body(offline_door())


def ask_unless_yes(yes: bool, what: str, question: str) -> bool:
    """Ask ``question`` on the terminal unless ``--yes``; without a terminal refuse (``what``: "delete 3
    memories")."""
    if yes:
        return True
    if not sys.stdin.isatty():
        raise CatcodeError(f"Refusing to {what} without --yes (no terminal to ask on)")
    return typer.confirm(question, default=False)


def echo(text: str) -> None:
    """``text`` on stdout, control characters shown rather than obeyed on a terminal (a memory's words may be the
    model's)."""
    typer.echo(shown_on(sys.stdout, text))


def said(result: Any) -> None:
    """What a flow did, then how to undo it from the shell."""
    from catcode.memory.words import SHELL

    typer.echo(SHELL.said(result))


# -- looking -----------------------------------------------------------------------------------------------------


def list_memories() -> None:
    """List memories (name - description (type, all projects | this project)), user scope first."""
    from catcode.memory.words import format_list, hidden_line, unreadable_line

    def body(door: MemoryDoor) -> None:
        listing = door.listing()
        echo(format_list(listing.items))
        if listing.unreadable:
            typer.echo(unreadable_line(listing.unreadable), err=True)
        if listing.hidden:
            typer.echo(hidden_line(listing.hidden), err=True)

    with_door(body)


def show(name: str = typer.Argument(..., help="The memory's name.")) -> None:
    """Show one memory in full, with its scope."""
    from catcode.memory.words import format_entry

    def body(door: MemoryDoor) -> None:
        shown = door.show(name)
        echo(format_entry(shown.entry, shown.scope))

    with_door(body)


def status() -> None:
    """Scopes and counts, cursor, unprocessed lines, failures, versioning, unreadable files."""
    from catcode.memory.words import status_lines

    with_door(lambda door: typer.echo("\n".join(status_lines(door.status()))))


def path() -> None:
    """Print where memories live: the memory root, both scopes, the history log."""
    from catcode.memory.words import path_summary

    with memory_errors():
        typer.echo(path_summary(load()[1]))


def search(
    query: list[str] = typer.Argument(..., help="Words, identifiers or a phrase, in any language (after -- as is)."),
    limit: int = typer.Option(
        10, "--limit", "-n", help="How many results at most (1-100).", parser=whole_number(1, 100)
    ),
    as_json: bool = typer.Option(
        False, "--json", help="One JSON object per line: kind, source, date, score, snippet, scope."
    ),
) -> None:
    """Search every memory, session summary and past conversation of this project, one line per source, best
    match first. Put the question after -- to pass it as plain text: catcode memory search -- "what's -n?"."""
    from catcode.memory.words import search_json_lines, search_text, unreadable_line

    def body(door: MemoryDoor) -> None:
        found = door.search(" ".join(query), limit, unreadable=True)
        if as_json:
            for line in search_json_lines(found.hits):
                typer.echo(line)
        else:
            echo(search_text(found.query, found.hits))
        # A memory file written by hand that is not a valid one is left out of the search: say so, as list does.
        if found.unreadable:
            typer.echo(unreadable_line(found.unreadable), err=True)
        if found.unsaved:
            typer.echo(f"catcode: {found.unsaved}", err=True)

    with_door(body)


def recent(
    count: int = typer.Argument(5, help="How many session summaries (1-100).", parser=whole_number(1, 100)),
) -> None:
    """Show the latest session summaries of this project's journal."""
    from catcode.memory.words import recent_text

    with_door(lambda door: echo(recent_text(door.recent(count))))


def doctor(fix: bool = typer.Option(False, "--fix", help="Quarantine unreadable files, rebuild indexes.")) -> None:
    """Check memory files, indexes, history.jsonl and versioning; list each problem with its fix. Exit 1 if
    problems remain."""
    healthy = True

    def body(door: MemoryDoor) -> None:
        nonlocal healthy
        report = door.doctor(fix=fix)
        typer.echo(report.text())
        healthy = report.healthy

    with_door(body)
    if not healthy:
        raise typer.Exit(1)


# -- changing ----------------------------------------------------------------------------------------------------


def forget(
    name: str = typer.Argument(..., help="The memory's name."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask."),
) -> None:
    """Delete one memory (one change that `catcode memory revert` undoes)."""
    from catcode.memory.words import forget_question

    def confirm(question: ForgetQuestion) -> bool:
        return ask_unless_yes(yes, f"forget {name}", forget_question(question))

    with_door(lambda door: said(door.forget(name, confirm)))


def edit(name: str = typer.Argument(..., help="The memory's name.")) -> None:
    """Edit one memory in $VISUAL or $EDITOR; it is saved only as a valid memory file (else edit again or
    give up: nothing is half-written)."""

    def again(rejected: EditRejected) -> bool:
        typer.echo(f"{rejected.name} was not saved: {rejected.problem}", err=True)
        return sys.stdin.isatty() and typer.confirm("Edit it again?", default=True)

    with_door(lambda door: said(door.edit(name, again)))


def move(
    name: str = typer.Argument(..., help="The memory's name."),
    where: str = typer.Argument(..., help="user (all projects) or project (this project)."),
) -> None:
    """Keep a memory for all projects (user) or for this project only (project)."""
    with_door(lambda door: said(door.move(name, where)))


def clear(yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask.")) -> None:
    """Delete every memory (one change that `catcode memory revert` undoes). What was said before the clear, in
    any project, is never saved afterwards (not even by a session still open)."""
    from catcode.memory.words import clear_question

    def confirm(question: ClearQuestion) -> bool:
        return ask_unless_yes(yes, f"delete {question.counts.total} memories", clear_question(question))

    with_door(lambda door: said(door.clear(confirm)))


def log_changes(
    limit: int = typer.Argument(10, help="How many changes to show.", parser=whole_number(1)),
    everything: bool = typer.Option(False, "--all", help="Journal entries and set-up changes too."),
) -> None:
    """Recent changes to memories, newest first: id, when, why, and A/M/D per memory."""
    from catcode.memory.words import format_changes

    with_door(lambda door: echo(format_changes(door.log(limit, everything=everything))))


def diff(commit: str = typer.Argument(None, help="Change id from `catcode memory log` (default: the last).")) -> None:
    """Show what a memory change did, as a diff (default: the last change to memories)."""
    from catcode.memory.words import NO_CHANGES

    with_door(lambda door: echo(door.diff(commit).rstrip("\n") or NO_CHANGES))


def revert(commit: str = typer.Argument(None, help="Change id from `catcode memory log` (default: the last).")) -> None:
    """Undo a memory change as a new change (default: the last change to memories; a later change to the same
    memory makes it refuse)."""
    from catcode.memory.words import describe_revert

    with_door(lambda door: typer.echo(describe_revert(door.revert(commit))))


# -- beyond this terminal: the web view and sync ------------------------------------------------------------------


def remote_add(
    url: str = typer.Argument(..., help="A git URL (SSH, HTTPS or a path); an empty repository will do."),
) -> None:
    """Set the git remote that `catcode memory sync` fetches from and pushes to."""
    with_door(lambda door: typer.echo(door.add_remote(url)))


def remote_show() -> None:
    """Show the memory remote, the last sync and what is waiting to be sent or merged."""
    with_door(lambda door: typer.echo("\n".join(door.show_remote())))


def sync() -> None:
    """Sync memories with the remote: fetch, merge (memory by memory), commit, push. Never forces a push."""
    with_door(lambda door: typer.echo("\n".join(door.sync().lines())))


def serve(
    port: int = typer.Option(
        DEFAULT_PORT, "--port", help="Port to listen on (0: a free one).", parser=whole_number(0, 65535)
    ),
    open_browser: bool = typer.Option(False, "--open", help="Open the page in your browser."),
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Address to listen on. Anything but 127.0.0.1 exposes your memories: be sure."
    ),
) -> None:
    """Browse, search and undo memory changes in your browser: a local web page with a JSON API, on 127.0.0.1
    only, behind a token printed in its URL."""
    from catcode.web.server import serve_memory

    with memory_errors():
        serve_memory(offline_door(), host=host, port=port, open_browser=open_browser, say=typer.echo)


# -- import and export -------------------------------------------------------------------------------------------


def import_memories(
    source: str = typer.Argument(..., help="claude, codex, gemini, or a file or folder (e.g. an export)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would be imported; write nothing."),
    yes: bool = typer.Option(
        False,
        "--yes",
        "-y",
        help="Do not ask to confirm; a name that is taken keeps both (renamed). Memories for all projects still "
        "need your consent: asked on a terminal, or allowed by your permission rules.",
    ),
    claude_md: str | None = typer.Option(
        None, "--claude-md", metavar="SECTIONS", help="claude: CLAUDE.md sections to import too: all, none or 1,3."
    ),
) -> None:
    """Bring in the memories another coding agent keeps (Claude Code's auto memory of this project and the
    CLAUDE.md sections you choose, Codex's memories, Gemini CLI's saved facts), as one change `catcode memory
    revert` undoes. Names that are taken are shown with both texts and merged or renamed, never replaced; a memory
    for all projects is saved only with your consent, as a model's memory_write would be."""
    from catcode.memory.words import NO_TERMINAL, clash_text, held_text

    with memory_errors():
        door = offline_door()
        asks = not yes and not dry_run and sys.stdin.isatty()
        if source == "claude":
            _say_ignored(door)
        gathered = door.gather(source, os.environ, lambda offers: _choose_sections(offers, claude_md, asks))
        unresolved: list[str] = []

        def choose(step: Step) -> Action:
            assert step.existing is not None  # a clash: the name is taken
            typer.echo(clash_text(step.existing, gathered.label, step.item.origin, step.item.content))
            if dry_run or yes:
                typer.echo("  → both kept: the imported one is renamed" + (" (--yes)" if yes else ""))
                return "rename"
            if not sys.stdin.isatty():
                unresolved.append(step.name)
                return "skip"
            answer = typer.prompt("  [m]erge the texts, [r]ename the imported one, or [s]kip it?", default="r")
            chosen: dict[str, Action] = {"m": "merge", "s": "skip"}
            return chosen.get(answer.strip().lower()[:1], "rename")

        plan = door.plan_import(gathered, choose)
        if unresolved:
            raise CatcodeError(
                f"{len(unresolved)} name(s) are taken by memories with another text ({', '.join(unresolved)}); run it "
                "on a terminal to merge or rename each, or pass --yes (keeps both, renaming the imported ones)"
            )
        held = [] if dry_run else door.settle_import(plan, _ask_all_projects if sys.stdin.isatty() else None)
        typer.echo(f"From {gathered.label} ({gathered.where}):")
        typer.echo("\n".join(plan.lines()) or "(nothing found)")
        if dry_run and plan.for_all_projects():
            typer.echo(f"{len(plan.for_all_projects())} of them would be for all projects: each asks for your consent.")
        unasked = [step.name for step in held if step.why == NO_TERMINAL]
        if unasked:
            typer.echo(held_text(unasked, str(door.paths.home / "settings.yaml")), err=True)
        count = len(plan.writes)
        if not count:
            typer.echo("Nothing to import.")
            return
        if dry_run:
            typer.echo(f"Would import {count} memories. Nothing written (--dry-run).")
            return
        if not yes:
            if not sys.stdin.isatty():
                raise CatcodeError(f"Refusing to import {count} memories without --yes (no terminal to ask on)")
            if not typer.confirm(f"Import {count} memories?", default=True):
                typer.echo("Nothing imported.")
                return
        _imported(door, plan, count, gathered.label)


def _imported(door: MemoryDoor, plan: ImportPlan, count: int, label: str) -> None:
    """Write the plan; say how many were imported, how to undo it, and what was renamed or redacted."""
    from catcode.memory.words import SHELL

    counts = door.apply_import(plan)
    typer.echo(f"Imported {count} memories from {label}." + SHELL.undo_hint(counts.commit))
    for asked, given in counts.renamed.items():
        typer.echo(f"{asked} was saved as {given}: another project's memory has that name.")
    if counts.redacted:
        typer.echo(f"{counts.redacted} secret(s) were redacted before saving.")


def _ask_all_projects(step: Step) -> Answer:
    """Show one memory that would be saved for all projects and ask whether it may be."""
    from catcode.memory.words import replacement_note

    entry = step.entry
    if step.existing is not None:
        typer.echo(replacement_note(step.existing, step.scope, entry).rstrip())
    else:
        typer.echo(f"{step.name} ({entry.type.value}) would be a memory for all projects (every project sees it):")
        typer.echo(f"  {entry.description}")
        typer.echo("\n".join(f"    {line}" for line in entry.content.strip().splitlines()))
    answer = typer.prompt("  Save it for all projects? [y]es, [n]o, or [a]ll the rest", default="n")
    chosen: dict[str, Answer] = {"y": "yes", "a": "all"}
    return chosen.get(answer.strip().lower()[:1], "no")


def _say_ignored(door: MemoryDoor) -> None:
    """One line when the project's Claude Code settings ask for another memory folder (which is not followed)."""
    ignored = door.ignored_claude_setting()
    if ignored is not None:
        typer.echo(
            f"{ignored} sets autoMemoryDirectory: not followed (only your own Claude Code settings choose where "
            "memory import and export go).",
            err=True,
        )


def _choose_sections(offers: list[Offer], given: str | None, interactive: bool) -> list[Offer]:
    """The CLAUDE.md sections to import: ``--claude-md`` (all, none, 1,3), else asked on a terminal, else none."""
    for offer in offers:
        typer.echo(f"  CLAUDE.md section {offer.number}: {offer.title or '(top)'} — {offer.path}")
    answer = given
    if answer is None and interactive:
        answer = typer.prompt("Import which CLAUDE.md sections? (1,3 / all / none)", default="none")
    if answer is None:
        typer.echo("  CLAUDE.md sections are imported only when chosen: --claude-md 1,3 or all.")
        return []
    answer = answer.strip().lower()
    if answer in ("", "none"):
        return []
    if answer == "all":
        return offers
    try:
        numbers = {int(part) for part in answer.replace(" ", ",").split(",") if part}
    except ValueError:
        raise CatcodeError(f"--claude-md: expected all, none or section numbers like 1,3, got {given!r}") from None
    unknown = sorted(numbers - {offer.number for offer in offers})
    if unknown:
        raise CatcodeError(f"--claude-md: there is no CLAUDE.md section {unknown[0]} (1 to {len(offers)})")
    return [offer for offer in offers if offer.number in numbers]


def export_memories(
    format_: str = typer.Option(..., "--format", metavar="claude|agents-md", help="claude or agents-md."),
    out: Path | None = typer.Option(
        None,
        "--out",
        help="Folder (claude) or file (agents-md); default: this project's Claude Code auto memory, "
        "or the project's AGENTS.md.",
    ),
    force: bool = typer.Option(False, "--force", help="claude: overwrite files there that hold another text."),
) -> None:
    """Write every memory in Claude Code's auto-memory layout, or as a section of an AGENTS.md."""
    from catcode.memory.service import EXPORT_FORMATS

    with memory_errors():
        if format_ not in EXPORT_FORMATS:
            raise CatcodeError(f"--format: unknown format {format_!r} (choose: {', '.join(EXPORT_FORMATS)})")
        door = offline_door()
        if not door.entries():
            typer.echo("No memories to export.")
            return
        if format_ == "claude" and out is None:
            _say_ignored(door)
        where, done = door.export(format_, out, force=force, env=os.environ)
        if format_ == "claude":
            typer.echo(f"Wrote {len(done.written)} memories to {where} (Claude Code's auto-memory layout).")
            if done.unchanged:
                typer.echo(f"{len(done.unchanged)} were there already, unchanged.")
            if done.kept:
                typer.echo(f"Left alone (another text there; --force overwrites): {', '.join(done.kept)}", err=True)
        else:
            typer.echo(f'Wrote {len(done.written)} memories to {where} (section "Memories (catcode)").')


# -- the table ---------------------------------------------------------------------------------------------------

COMMANDS: list[tuple[str, Callable[..., None]]] = [
    ("list", list_memories),
    ("show", show),
    ("status", status),
    ("forget", forget),
    ("edit", edit),
    ("move", move),
    ("clear", clear),
    ("path", path),
    ("log", log_changes),
    ("diff", diff),
    ("revert", revert),
    ("doctor", doctor),
    ("search", search),
    ("recent", recent),
    ("remote add", remote_add),
    ("remote show", remote_show),
    ("sync", sync),
    ("serve", serve),
    ("import", import_memories),
    ("export", export_memories),
]
"""Every ``catcode memory`` command, in the order ``--help`` lists them (``remote`` is a group of two)."""

memory_app = typer.Typer(
    name="memory", help="Inspect and manage memories offline (no API key needed).", no_args_is_help=True
)
remote_app = typer.Typer(
    name="remote", cls=HelpGroup, help="The git remote that memories sync through.", no_args_is_help=True
)
for _name, _command in COMMANDS:
    _group, _, _sub = _name.partition(" ")
    if _sub:
        remote_app.command(_sub)(_command)
        if _sub == "add":
            memory_app.add_typer(remote_app, name=_group)
    else:
        memory_app.command(_name)(_command)
