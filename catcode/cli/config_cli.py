"""``catcode config``: the effective settings and the layer each value came from; ``catcode config set KEY VALUE
[--project|--user]`` (validated before anything is written); ``catcode config trust [--reset]``: what this project
asks for that needs consent, your recorded answers, and forgetting them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

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


def label(name: str, home: Path, root: Path) -> str:
    """A layer as people read it: ``user (~/.cat-code/settings.yaml)``, ``project (.cat-code/settings.yaml)``…"""
    if name == str(home / "settings.yaml"):
        return f"user ({name})"
    if name == str(root / ".cat-code" / "settings.yaml"):
        return "project (.cat-code/settings.yaml)"
    if name == str(root / ".cat-code" / "settings.local.yaml"):
        return "project local (.cat-code/settings.local.yaml)"
    return name


def _flatten(data: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict):
            rows += _flatten(value, dotted + ".")
        else:
            rows.append((dotted, value))
    return rows


def _lookup(data: dict[str, Any], dotted: str) -> bool:
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def effective_rows(env: dict[str, str]) -> tuple[Settings, list[tuple[str, str, str]]]:
    """The settings, and ``(key, value, layer)`` for every one of them, in the order of the settings model."""
    from catcode.safety.trusted_settings import settings_layers
    from catcode.settings.config import ENV_VARS, validate_layers

    home, root = _where()
    layers = settings_layers(home, root, env, {})
    settings = validate_layers(layers)
    by_path = {".".join(path): var for var, path in ENV_VARS.items() if var in env}
    rows = []
    for key, value in _flatten(settings.model_dump(mode="json")):
        source = "default"
        for name, data in reversed(layers):
            if _lookup(data, key):
                source = f"environment ({by_path.get(key, '?')})" if name == "environment" else label(name, home, root)
                break
        rows.append((key, json.dumps(value, ensure_ascii=False), source))
    return settings, rows


@config_app.callback()
def show(ctx: typer.Context) -> None:
    """Show the effective settings and the layer each value came from."""
    if ctx.invoked_subcommand is not None:
        return
    from catcode.errors import ConfigError
    from catcode.providers.registry import report

    env = dict(os.environ)
    try:
        settings, rows = effective_rows(env)
    except ConfigError as exc:
        _fail(str(exc))
    width = max(len(k) + len(v) for k, v, _ in rows) + 3
    for key, value, source in rows:
        typer.echo(f"{f'{key} = {value}':<{width}}  ({source})")
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
    """What the project's files ask for that needs consent: permission settings, skills, MCP servers, hooks."""
    from catcode.settings.config import read_settings_file

    lines: list[str] = []
    for name in ("settings.yaml", "settings.local.yaml"):
        path = root / ".cat-code" / name
        try:
            data = read_settings_file(path)
        except Exception as exc:
            lines.append(f"  (cannot read .cat-code/{name}: {exc})")
            continue
        raw_permissions = data.get("permissions")
        permissions = raw_permissions if isinstance(raw_permissions, dict) else {}
        if permissions.get("mode"):
            lines.append(f"  permission mode {permissions['mode']} (.cat-code/{name})")
        for rule in permissions.get("allow") or []:
            lines.append(f"  allow rule {rule} (.cat-code/{name})")
        for folder in [*(permissions.get("additional_dirs") or []), *(permissions.get("additional_directories") or [])]:
            lines.append(f"  access to {folder} (.cat-code/{name})")
        if data.get("hooks"):
            lines.append(f"  hooks (.cat-code/{name})")
    skills = root / ".cat-code" / "skills"
    if skills.is_dir():
        lines += [f"  skill {p.name} (.cat-code/skills)" for p in sorted(skills.iterdir()) if p.is_dir()]
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
