"""``catcode memory import claude|codex|gemini|PATH [--dry-run] [--yes]`` and ``catcode memory export --format
claude|agents-md [--out PATH]``: memories brought in from Claude Code, Codex or Gemini CLI, and taken back out
(``memory/transfer/``). Registered on ``memory_cli.memory_app`` by ``cli_app``; errors are one line on stderr and
exit 1, like every ``catcode memory`` command."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from catcode.cli.memory_offline import memory_errors, offline_runtime
from catcode.cli.memory_words import NOT_RECORDED, undo_hint

if TYPE_CHECKING:
    from catcode.memory.runtime import MemoryRuntime
    from catcode.memory.transfer.consent import Answer
    from catcode.memory.transfer.items import ImportItem, Skipped
    from catcode.memory.transfer.plan import Action, Step
    from catcode.memory.transfer.readers import Offer
    from catcode.safety.permissions import PermissionPolicy

TOOLS = ("claude", "codex", "gemini")
FORMATS = ("claude", "agents-md")


def register(memory_app: typer.Typer) -> None:
    """Add ``import`` and ``export`` to ``catcode memory``."""
    memory_app.command("import")(import_memories)
    memory_app.command("export")(export_memories)


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
    from catcode.errors import CatcodeError
    from catcode.memory.transfer import consent
    from catcode.memory.transfer.plan import apply_plan, clash_text, make_plan

    with memory_errors():
        runtime = offline_runtime()
        root = runtime.paths.project_root
        asks = not yes and not dry_run and sys.stdin.isatty()
        label, where, items, skipped = _gather(source, root, dict(os.environ), claude_md, interactive=asks)
        unresolved: list[str] = []

        def choose(step: Step) -> Action:
            typer.echo(clash_text(step, label))
            if dry_run or yes:
                typer.echo("  → both kept: the imported one is renamed" + (" (--yes)" if yes else ""))
                return "rename"
            if not sys.stdin.isatty():
                unresolved.append(step.name)
                return "skip"
            answer = typer.prompt("  [m]erge the texts, [r]ename the imported one, or [s]kip it?", default="r")
            chosen: dict[str, Action] = {"m": "merge", "s": "skip"}
            return chosen.get(answer.strip().lower()[:1], "rename")

        plan = make_plan(runtime.store, label, items, skipped, choose)
        if unresolved:
            raise CatcodeError(
                f"{len(unresolved)} name(s) are taken by memories with another text ({', '.join(unresolved)}); run it "
                "on a terminal to merge or rename each, or pass --yes (keeps both, renaming the imported ones)"
            )
        ask = _ask_all_projects if sys.stdin.isatty() else None
        held = [] if dry_run else consent.settle(plan, _policy(runtime), ask)
        typer.echo(f"From {label} ({where}):")
        typer.echo("\n".join(plan.lines()) or "(nothing found)")
        if dry_run and plan.for_all_projects():
            typer.echo(f"{len(plan.for_all_projects())} of them would be for all projects: each asks for your consent.")
        unasked = [step for step in held if step.why == consent.NO_TERMINAL]
        if unasked:
            typer.echo(consent.held_text(unasked, str(runtime.paths.home / "settings.yaml")), err=True)
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
        counts = apply_plan(runtime.store, plan)
        typer.echo(f"Imported {count} memories from {label}." + undo_hint(counts.commit))
        if counts.commit is None and runtime.git.available:
            typer.echo(NOT_RECORDED, err=True)
        for asked, given in counts.renamed.items():
            typer.echo(f"{asked} was saved as {given}: another project's memory has that name.")
        if counts.redacted:
            typer.echo(f"{counts.redacted} secret(s) were redacted before saving.")


def _policy(runtime: MemoryRuntime) -> PermissionPolicy:
    """The person's permission policy (their settings' mode and rules; a project's only with consent given)."""
    from catcode.safety.permissions import PermissionPolicy

    rules = runtime.settings.permissions
    return PermissionPolicy.from_strings(rules.mode, rules.allow, rules.deny, runtime.paths.project_root)


def _ask_all_projects(step: Step) -> Answer:
    """Show one memory that would be saved for all projects and ask whether it may be."""
    from catcode.memory.tools import replacement_note

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


def _gather(
    source: str, root: Path, env: dict[str, str], claude_md: str | None, *, interactive: bool
) -> tuple[str, str, list[ImportItem], list[Skipped]]:
    """The label, where it was read, the items and what was skipped, for ``source``."""
    from catcode.confined import Refused
    from catcode.errors import CatcodeError

    try:
        return _read_source(source, root, env, claude_md, interactive=interactive)
    except Refused as exc:
        raise CatcodeError(f"Cannot read {source}: {exc}") from None


def _read_source(
    source: str, root: Path, env: dict[str, str], claude_md: str | None, *, interactive: bool
) -> tuple[str, str, list[ImportItem], list[Skipped]]:
    from catcode.errors import CatcodeError
    from catcode.memory.transfer import locate, readers

    if source == "claude":
        _say_ignored(root)
        folder = locate.claude_memory_dir(root, env)
        items, skipped = readers.read_folder(folder, root) if folder.is_dir() else ([], [])
        offers, unread = readers.claude_md_sections(locate.claude_md_files(root, env), root)
        skipped += unread
        chosen = _choose_sections(offers, claude_md, interactive)
        items += [offer.item(root) for offer in chosen]
        if not folder.is_dir() and not offers:
            raise CatcodeError(f"No Claude Code memory for this project: {folder} does not exist (CLAUDE_CONFIG_DIR)")
        return "claude", str(folder), items, skipped
    if source == "codex":
        folder = locate.codex_memory_dir(env)
        if not folder.is_dir():
            raise CatcodeError(f"No Codex memories: {folder} does not exist (CODEX_HOME)")
        return "codex", str(folder), *readers.read_codex(folder, root)
    if source == "gemini":
        path = locate.gemini_memory_file(env)
        if not path.is_file():
            raise CatcodeError(f"No Gemini CLI memories: {path} does not exist (GEMINI_CLI_HOME)")
        return "gemini", str(path), *readers.read_gemini(path, root)
    path = Path(source).expanduser()
    if path.is_dir():
        return path.name or str(path), str(path), *readers.read_folder(path, root)
    if path.is_file():
        return path.name, str(path), *readers.read_file(path, root)
    raise CatcodeError(f"No such file or folder: {source} (give claude, codex, gemini or a path)")


def _say_ignored(root: Path) -> None:
    """One line when the project's Claude Code settings ask for another memory folder (which is not followed)."""
    from catcode.memory.transfer import locate

    ignored = locate.ignored_project_setting(root)
    if ignored is not None:
        typer.echo(
            f"{ignored} sets autoMemoryDirectory: not followed (only your own Claude Code settings choose where "
            "memory import and export go).",
            err=True,
        )


def _choose_sections(offers: list[Offer], given: str | None, interactive: bool) -> list[Offer]:
    """The CLAUDE.md sections to import: ``--claude-md`` (all, none, 1,3), else asked on a terminal, else none."""
    from catcode.errors import CatcodeError

    if not offers:
        return []
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
    from catcode.errors import CatcodeError
    from catcode.memory.transfer import export, locate

    with memory_errors():
        if format_ not in FORMATS:
            raise CatcodeError(f"--format: unknown format {format_!r} (choose: {', '.join(FORMATS)})")
        runtime = offline_runtime()
        entries = runtime.store.load_all()
        if not entries:
            typer.echo("No memories to export.")
            return
        root = runtime.paths.project_root
        if format_ == "claude":
            if out is None:
                _say_ignored(root)
            folder = out.expanduser() if out else locate.claude_memory_dir(root, dict(os.environ))
            done = export.export_claude(entries, folder, force=force)
            typer.echo(f"Wrote {len(done.written)} memories to {folder} (Claude Code's auto-memory layout).")
            if done.unchanged:
                typer.echo(f"{len(done.unchanged)} were there already, unchanged.")
            if done.kept:
                typer.echo(f"Left alone (another text there; --force overwrites): {', '.join(done.kept)}", err=True)
        else:
            path = out.expanduser() if out else root / "AGENTS.md"
            done = export.export_agents_md(entries, path)
            typer.echo(f'Wrote {len(done.written)} memories to {path} (section "Memories (catcode)").')
