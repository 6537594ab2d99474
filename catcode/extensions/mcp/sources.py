"""Where a session's MCP servers come from: ``ServerSpec`` and ``collect_servers``.

- ``~/.claude.json`` (``$CLAUDE_CONFIG_DIR/.claude.json``): the servers ``claude mcp add`` keeps there — its user
  scope (``mcpServers``) and its local scope for this project (``projects.<path>.mcpServers``) — the user's own,
  trusted, as Claude Code reads them.
- ``$CATCODE_HOME/settings.yaml`` ``mcp_servers``: the user's own, trusted (a name here wins over Claude Code's).
- ``<project>/.cat-code/settings.yaml`` and ``settings.local.yaml`` ``mcp_servers``, and ``<project>/.mcp.json`` in
  Claude Code's format (``{"mcpServers": {NAME: {"type": "stdio"|"http", "command", "args", "env", "url",
  "headers"}}}``, with ``${VAR}`` and ``${VAR:-default}`` expanded from the environment): a cloned repository's,
  so each needs one-time consent (``consent_item``). A project server of the same name as a user server replaces
  it only once allowed; later files win over earlier ones.

A broken ``.mcp.json`` or entry is one line for the person (``notify``) and is skipped; the settings files were
validated with the rest of the settings already."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from catcode.log import get_logger
from catcode.settings.config import project_settings_files, read_settings_file
from catcode.settings.consent import ConsentItem
from catcode.settings.mcp import SERVER_NAME_PATTERN, McpServerSettings

# Any: MCP server entries are JSON/YAML data (.mcp.json, Claude Code's files), checked as they are read.

log = get_logger(__name__)

MCP_JSON = ".mcp.json"
RUN_SOURCE = Path("--mcp-config")
RUN_SERVERS: dict[str, McpServerSettings] = {}
STRICT = [False]
"""``--strict-mcp-config``: only ``RUN_SERVERS`` this run, none from a settings file or ``.mcp.json``."""
"""Servers given with ``--mcp-config`` for this run (set once by the command line, before the session is built):
the person's own, like the user's settings; no settings file can declare them."""
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_VARIABLE_NAME = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True)
class ServerSpec:
    """One configured server: its name, settings (variables expanded), the file that declared it, and the entry
    as written there (what consent is given to)."""

    name: str
    settings: McpServerSettings
    source: Path
    trusted: bool  # declared by the user's own settings
    declared: str = ""  # the entry as written (canonical JSON): its hash is the consent fingerprint

    def consent_item(self) -> ConsentItem:
        """What the person is asked about for a project server (naming the environment variables it reads: their
        values may be sent to the server)."""
        names = sorted(set(_VARIABLE_NAME.findall(self.declared))) if self.source.name == MCP_JSON else []
        reads = f"; reads ${', $'.join(names)}" if names else ""
        return ConsentItem(
            kind="mcp",
            key=f"server {self.name}",
            summary=f"MCP server {self.name} — {self.settings.describe()} ({self.source.name}{reads})",
            content=f"{self.source.name}\n{self.declared}",
        )


@dataclass
class ServerSources:
    """The user's servers and the project's (which wait for consent), in declaration order."""

    user: list[ServerSpec]
    project: list[ServerSpec]

    def effective(self, allowed: set[str]) -> list[ServerSpec]:
        """The servers of this session: the user's, then allowed project servers (replacing same-named ones)."""
        chosen = {spec.name: spec for spec in self.user}
        for spec in self.project:
            if spec.consent_item().id in allowed:
                chosen[spec.name] = spec
        return sorted(chosen.values(), key=lambda spec: spec.name)


def collect_servers(
    home: Path, project_root: Path, notify: Callable[[str], None], env: Mapping[str, str] | None = None
) -> ServerSources:
    """Every server the user's settings and the project declare (see the module docstring)."""
    env = os.environ if env is None else env
    if STRICT[0]:
        return ServerSources(
            [ServerSpec(n, s, RUN_SOURCE, True, _canonical(s.model_dump())) for n, s in RUN_SERVERS.items()], []
        )
    user = _from_claude_json(claude_json(env), project_root, env, notify)
    mine = _from_settings(home / "settings.yaml", notify, trusted=True)
    user = [spec for spec in user if spec.name not in {m.name for m in mine}] + mine
    run = {spec.name for spec in user} & set(RUN_SERVERS)
    user = [spec for spec in user if spec.name not in run]  # --mcp-config's server of the same name wins
    user += [ServerSpec(name, s, RUN_SOURCE, True, _canonical(s.model_dump())) for name, s in RUN_SERVERS.items()]
    project: list[ServerSpec] = []
    user_file = (home / "settings.yaml").resolve()
    for path in project_settings_files(project_root):
        if path.resolve() != user_file:  # working in $CATCODE_HOME's parent: the same file, counted once
            project += _from_settings(path, notify, trusted=False)
    project += _from_mcp_json(project_root / MCP_JSON, env, notify)
    return ServerSources(user, project)


def claude_json(env: Mapping[str, str]) -> Path:
    """Claude Code's file of the person's state and MCP servers."""
    folder = env.get("CLAUDE_CONFIG_DIR")
    return Path(folder).expanduser() / ".claude.json" if folder else Path.home() / ".claude.json"


def _from_claude_json(
    path: Path, project_root: Path, env: Mapping[str, str], notify: Callable[[str], None]
) -> list[ServerSpec]:
    """The servers of Claude Code's user scope, then of its local scope for this project."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        notify(f"Skipped the MCP servers of {path}: not valid JSON ({exc})")
        return []
    if not isinstance(data, dict):
        return []
    projects = data.get("projects")
    here = projects.get(str(project_root)) if isinstance(projects, dict) else None
    found: dict[str, ServerSpec] = {}  # the local scope's server replaces the user scope's of the same name
    for servers in (data.get("mcpServers"), here.get("mcpServers") if isinstance(here, dict) else None):
        if isinstance(servers, dict):
            found.update((spec.name, spec) for spec in _claude_specs(servers, path, env, notify, trusted=True))
    return list(found.values())


def _claude_specs(
    servers: dict[str, Any], path: Path, env: Mapping[str, str], notify: Callable[[str], None], *, trusted: bool
) -> list[ServerSpec]:
    """The servers of a ``mcpServers`` object in Claude Code's shape; each broken entry is one line and skipped."""
    specs = []
    for name, entry in servers.items():
        problem = _entry_problem(str(name), entry)
        if problem is None:
            try:
                settings = McpServerSettings.model_validate(claude_entry(_expand(entry, env)))
            except (ValidationError, KeyError) as exc:
                problem = _first_error(exc)
            else:
                specs.append(ServerSpec(str(name), settings, path, trusted, _canonical(entry)))
                continue
        log.warning("mcp_entry_skipped", path=str(path), server=str(name), reason=problem)
        notify(f"Skipped MCP server {name} in {path}: {problem}")
    return specs


def _from_settings(path: Path, notify: Callable[[str], None], *, trusted: bool) -> list[ServerSpec]:
    raw = read_settings_file(path).get("mcp_servers")
    if not isinstance(raw, dict):
        return []
    specs = []
    for name, entry in raw.items():
        try:
            settings = McpServerSettings.model_validate(entry)
        except ValidationError as exc:  # valid only merged with another file's entry of the same name
            notify(f"Skipped MCP server {name} in {path}: {_first_error(exc)}")
            continue
        specs.append(ServerSpec(str(name), settings, path, trusted, _canonical(entry)))
    return specs


def _from_mcp_json(path: Path, env: Mapping[str, str], notify: Callable[[str], None]) -> list[ServerSpec]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        log.warning("mcp_json_unreadable", path=str(path), error=repr(exc))
        notify(f"Skipped {path}: not valid JSON ({exc})")
        return []
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        notify(f'Skipped {path}: expected {{"mcpServers": {{NAME: {{...}}}}}}')
        return []
    return _claude_specs(servers, path, env, notify, trusted=False)


def claude_servers(data: Any, env: Mapping[str, str], where: str) -> dict[str, McpServerSettings]:
    """The servers of a ``.mcp.json``-shaped object (``{"mcpServers": {NAME: {...}}}``), strictly: anything wrong is
    a ``ConfigError`` naming ``where`` and the server (``--mcp-config``: the person asked for exactly these)."""
    from catcode.errors import ConfigError

    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise ConfigError(f'{where}: expected {{"mcpServers": {{NAME: {{...}}}}}}')
    out: dict[str, McpServerSettings] = {}
    for name, entry in servers.items():
        problem = _entry_problem(str(name), entry)
        if problem is None:
            try:
                out[str(name)] = McpServerSettings.model_validate(claude_entry(_expand(entry, env)))
                continue
            except KeyError as exc:
                problem = _first_error(exc)
            except ValidationError as exc:
                from catcode.settings.config_errors import describe

                error = exc.errors()[0]
                where_in = ".".join(str(p) for p in error["loc"])
                problem = f"{where_in + ': ' if where_in else ''}{describe(error)}"
        raise ConfigError(f"{where}: server {name}: {problem}")
    return out


def _entry_problem(name: str, entry: Any) -> str | None:
    if not re.fullmatch(SERVER_NAME_PATTERN, name):
        return "a server name may only hold letters, digits, '-' and '_' (at most 32)"
    if not isinstance(entry, dict):
        return "expected an object with command or url"
    return None


def claude_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """Claude Code's keys onto ours: its ``streamable-http`` type is our ``http``; keys we do not use are dropped
    (a file written for another client still works)."""
    known = set(McpServerSettings.model_fields)
    out = {key: value for key, value in entry.items() if key in known}
    if out.get("type") == "streamable-http":
        out["type"] = "http"
    return out


def _expand(value: Any, env: Mapping[str, str]) -> Any:
    """``${VAR}`` and ``${VAR:-default}`` in every string; a variable that is unset and has no default is a
    ``KeyError`` naming it."""
    if isinstance(value, str):

        def one(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            if name in env:
                return env[name]
            if default is not None:
                return default
            raise KeyError(f"environment variable {name} is not set")

        return _VARIABLE.sub(one, value)
    if isinstance(value, list):
        return [_expand(v, env) for v in value]
    if isinstance(value, dict):
        return {k: _expand(v, env) for k, v in value.items()}
    return value


def _first_error(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return str(exc.args[0])
    assert isinstance(exc, ValidationError)
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    return f"{where + ': ' if where else ''}{err['msg']}"


def _canonical(entry: Any) -> str:
    return json.dumps(entry, sort_keys=True, ensure_ascii=False, default=str)
