"""``catcode config``: the effective settings and the layer each value came from; ``catcode config set KEY VALUE
[--project|--user]`` (validated before anything is written); ``catcode config trust [--reset]``: what this project
asks for that needs consent, your recorded answers, and forgetting them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from catcode.settings.config import Settings

# Any: settings files are YAML data.

config_app = typer.Typer(
    name="config", help="Show or change settings; review what this project was allowed.", invoke_without_command=True
)


def _where() -> tuple[Path, Path]:
    from catcode.settings.config import catcode_home, find_project_root

    return catcode_home(), find_project_root(Path.cwd())


def _fail(message: str) -> None:
    typer.echo(f"catcode: {message}", err=True)
    raise typer.Exit(2)


@config_app.callback()
def show(ctx: typer.Context) -> None:
    """Show the effective settings and the layer each value came from."""
    if ctx.invoked_subcommand is not None:
        return
    from catcode.errors import ConfigError
    from catcode.providers.registry import report
    from catcode.safety.settings_origin import effective_rows

    env = dict(os.environ)
    notes: list[str] = []
    home, root = _where()
    try:
        settings, rows = effective_rows(home, root, env, notes)
    except ConfigError as exc:
        _fail(str(exc))
    width = max(len(k) + len(v) for k, v, _ in rows) + 3
    for key, value, source in rows:
        typer.echo(f"{f'{key} = {value}':<{width}}  ({source})")
    for note in notes:
        typer.echo(f"Claude Code settings: {note}")
    typer.echo("")  # then the provider these settings and Claude Code's variables choose, as catcode doctor says
    for line in report(settings, env):
        typer.echo(line)
    typer.echo("")
    for line in _fence_lines(settings):
        typer.echo(line)


def _fence_lines(settings: Settings) -> list[str]:
    """What bash commands cannot read or get inside the sandbox, and how to change it."""
    from catcode.cli.fence_report import hidden_lines, withheld_line
    from catcode.sandbox.fence import Fence
    from catcode.sandbox.probe import Availability
    from catcode.settings.config import resolve_paths

    home, root = _where()
    paths = resolve_paths(settings, home, root)
    added = [root / folder for folder in settings.permissions.additional_dirs]
    fence = Fence(settings.sandbox, root, added, Availability(None, "not probed"), paths.home, paths.memory_root)
    intro = "Inside the sandbox (docs/sandbox.md): sandbox.hidden hides more, sandbox.readable gives a path back, "
    return [
        intro + "sandbox.env passes a variable",
        *(f"  {line}" for line in [*hidden_lines(fence), withheld_line(fence)]),
    ]


@config_app.command("set")
def set_value(
    key: str = typer.Argument(..., help="A dotted settings key, e.g. model or permissions.mode."),
    value: str = typer.Argument(..., help="The value, read as YAML: 8192, true, [a, b], text."),
    project: bool = typer.Option(False, "--project", help="Write the project's .cat-code/settings.yaml."),
    user: bool = typer.Option(False, "--user", help="Write your own $CATCODE_HOME/settings.yaml (the default)."),
) -> None:
    """Set KEY to VALUE in your settings (or the project's with --project); checked before anything is written."""
    from catcode.errors import ConfigError
    from catcode.safety.settings_writer import checked_write, parse_value, with_value
    from catcode.settings.config import read_settings_file

    if project and user:
        _fail("choose one of --project and --user")
    home, root = _where()
    target = root / ".cat-code" / "settings.yaml" if project else home / "settings.yaml"
    try:
        checked_write(
            target, with_value(read_settings_file(target), key, parse_value(value)), home=home, project_root=root,
            env=dict(os.environ),
        )  # fmt: skip
    except ConfigError as exc:
        _fail(f"{exc} (nothing was written)")
    typer.echo(f"Set {key} = {json.dumps(parse_value(value), ensure_ascii=False)} in {target}")


def project_requests(root: Path) -> list[str]:
    """What the project's files (``.cat-code/`` and ``.claude/``) ask for that may need consent: permission settings,
    environment variables, a status line, hooks, skills, agents, commands, MCP servers."""
    from catcode.settings.sources import project_files

    lines: list[str] = []
    home, _ = _where()
    for source in project_files(home, root):
        where = source.path.relative_to(root).as_posix()
        try:
            data, _ = source.read(root)
        except Exception as exc:
            lines.append(f"  (cannot read {where}: {exc})")
            continue
        raw_permissions = data.get("permissions")
        permissions = raw_permissions if isinstance(raw_permissions, dict) else {}
        if permissions.get("mode"):
            lines.append(f"  permission mode {permissions['mode']} ({where})")
        for rule in permissions.get("allow") or []:
            lines.append(f"  allow rule {rule} ({where})")
        for folder in [*(permissions.get("additional_dirs") or []), *(permissions.get("additional_directories") or [])]:
            lines.append(f"  access to {folder} ({where})")
        lines += [f"  environment variable {name} ({where})" for name in data.get("env") or {}]
        if data.get("status_line"):
            lines.append(f"  status line command ({where})")
        if data.get("hooks"):
            lines.append(f"  hooks ({where})")
    for folder in (".cat-code/skills", ".claude/skills", ".cat-code/agents", ".claude/agents", ".claude/commands"):
        found = root / folder
        if found.is_dir():
            kind = folder.rsplit("/", 1)[1].rstrip("s")
            lines += [f"  {kind} {p.stem} ({folder})" for p in sorted(found.iterdir()) if not p.name.startswith(".")]
    mcp = root / ".mcp.json"
    if mcp.is_file():
        try:
            servers = json.loads(mcp.read_text(encoding="utf-8")).get("mcpServers", {})
            lines += [f"  MCP server {name} (.mcp.json)" for name in servers]
        except (OSError, ValueError, AttributeError):
            lines.append("  MCP servers (.mcp.json, unreadable)")
    return lines


@config_app.command("trust")
def trust(reset: bool = typer.Option(False, "--reset", help="Forget your answers; the next start asks again.")) -> None:
    """Show what this project asked for and your recorded answers; --reset forgets them."""
    from catcode.settings.consent import ConsentStore

    home, root = _where()
    store = ConsentStore(home)
    if reset:
        count = store.forget(root)
        noun = "answer" if count == 1 else "answers"
        typer.echo(f"Forgot {count} {noun} for {root}; the next interactive start asks again.")
        return
    typer.echo(f"Project: {root}")
    requests = project_requests(root)
    typer.echo("This project asks for:" if requests else "This project asks for nothing that needs consent.")
    for line in requests:
        typer.echo(line)
    answers = store.answers(root)
    if not answers:
        typer.echo("Your recorded answers: none.")
        return
    typer.echo("Your recorded answers:")
    for item, allowed in sorted(answers.items()):
        typer.echo(f"  {'allowed' if allowed else 'refused'}  {item}")
    typer.echo("`catcode config trust --reset` forgets them; the next interactive start asks again.")
