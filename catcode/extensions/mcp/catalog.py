"""The MCP servers configured for a project, by scope, and adding or removing one — what ``catcode mcp add``,
``add-json``, ``list``, ``get`` and ``remove`` do, with Claude Code's scopes:

- ``local`` (the default): you, in this project — ``.cat-code/settings.local.yaml`` (kept out of git);
- ``project``: everyone with the repository — ``.mcp.json``, Claude Code's file;
- ``user``: you, in every project — ``$CATCODE_HOME/settings.yaml``.

A server you add to a project file is recorded as allowed (you chose it), so the next start does not ask about it;
one that arrived with a clone is still asked about. Every change is checked before anything is written. Claude
Code's own servers (``~/.claude.json``, added with ``claude mcp add``) are listed too: catcode uses them as they are
(``sources.py``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from catcode.errors import ConfigError
from catcode.extensions.mcp.sources import MCP_JSON, ServerSpec, collect_servers
from catcode.settings.consent import ConsentStore
from catcode.settings.mcp import SERVER_NAME_PATTERN, McpServerSettings

# Any: server entries are JSON/YAML data.

SCOPES = ("local", "project", "user")
LOCAL_FILE = Path(".cat-code") / "settings.local.yaml"


@dataclass(frozen=True)
class Listed:
    """One configured server, where it is declared, and whether this project may use it."""

    spec: ServerSpec
    scope: str
    allowed: bool | None  # a project's: your recorded answer (None: not asked yet); yours: True


def scope_file(scope: str, home: Path, root: Path) -> Path:
    """The file a scope's servers are kept in."""
    return {"local": root / LOCAL_FILE, "project": root / MCP_JSON, "user": home / "settings.yaml"}[scope]


def entry_of(
    name: str, target: str, args: list[str], *, transport: str, env: list[str], headers: list[str]
) -> dict[str, Any]:
    """The entry ``catcode mcp add`` writes, in Claude Code's shape; ``ConfigError`` for what cannot work."""
    import re

    if not re.fullmatch(SERVER_NAME_PATTERN, name):
        raise ConfigError(f"{name!r}: a server name may only hold letters, digits, '-' and '_' (at most 32)")
    entry: dict[str, Any]
    if transport == "stdio":
        entry = {"type": "stdio", "command": target, "args": list(args)}
        if env:
            entry["env"] = dict(_pair(item, "=", "-e") for item in env)
        if headers:
            raise ConfigError("-H/--header is for http and sse servers")
    elif transport in ("http", "sse"):
        if args:
            raise ConfigError(f"an {transport} server takes a URL and no arguments (got {' '.join(args)})")
        entry = {"type": transport, "url": target}
        if headers:
            entry["headers"] = dict(_pair(item, ":", "-H") for item in headers)
        if env:
            raise ConfigError("-e/--env is for stdio servers")
    else:
        raise ConfigError(f"unknown transport {transport!r} (choose: stdio, http, sse)")
    check(name, entry)
    return entry


def check(name: str, entry: Any) -> McpServerSettings:
    """``entry`` as server settings; ``ConfigError`` naming the server and what is wrong."""
    from pydantic import ValidationError

    from catcode.extensions.mcp.sources import claude_entry

    if not isinstance(entry, dict):
        raise ConfigError(f"server {name}: expected a JSON object with command or url")
    try:
        return McpServerSettings.model_validate(claude_entry(entry))
    except ValidationError as exc:
        from catcode.settings.config_errors import describe

        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        raise ConfigError(f"server {name}: {where + ': ' if where else ''}{describe(error)}") from None


def add(name: str, entry: dict[str, Any], scope: str, *, home: Path, root: Path, env: dict[str, str]) -> Path:
    """Add (or replace) server ``name`` in ``scope``; the file written. A project file's server is recorded as
    allowed."""
    target = scope_file(scope, home, root)
    if scope == "project":
        data = _read_json(target)
        data.setdefault("mcpServers", {})[name] = entry
        target.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    else:
        _write_settings(target, name, _catcode_entry(entry), home=home, root=root, env=env)
    if scope != "user":
        _allow(name, target, home, root, env)
    return target


def remove(name: str, scope: str | None, *, home: Path, root: Path, env: dict[str, str]) -> Path:
    """Remove server ``name`` from ``scope`` (or from the one scope that has it); the file written."""
    found = [s for s in SCOPES if name in _names(s, home, root)] if scope is None else [scope]
    if not found or name not in _names(found[0], home, root):
        where = f" in the {scope} scope" if scope else ""
        raise ConfigError(f"no MCP server {name!r}{where} (catcode mcp list shows them)")
    if len(found) > 1:
        raise ConfigError(f"{name!r} is in the {' and '.join(found)} scopes: say which with -s/--scope")
    target = scope_file(found[0], home, root)
    if found[0] == "project":
        data = _read_json(target)
        del data["mcpServers"][name]
        target.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    else:
        _write_settings(target, name, None, home=home, root=root, env=env)
    return target


def listed(home: Path, root: Path, env: dict[str, str]) -> list[Listed]:
    """Every server configured for this project, yours first."""
    sources = collect_servers(home, root, lambda line: None, env)
    store = ConsentStore(home)
    out = [Listed(spec, _scope_of(spec.source, home, root), True) for spec in sources.user]
    out += [Listed(spec, _scope_of(spec.source, home, root), store.decision(root, spec.consent_item()))
            for spec in sources.project]  # fmt: skip
    return out


def _scope_of(source: Path, home: Path, root: Path) -> str:
    for scope in SCOPES:
        if source == scope_file(scope, home, root):
            return scope
    if source.name == ".claude.json":
        return "Claude Code"
    return "project" if source.is_relative_to(root) else "user"


def _names(scope: str, home: Path, root: Path) -> set[str]:
    target = scope_file(scope, home, root)
    if scope == "project":
        servers = _read_json(target).get("mcpServers")
    else:
        from catcode.settings.config import read_settings_file

        servers = read_settings_file(target).get("mcp_servers")
    return set(servers) if isinstance(servers, dict) else set()


def _catcode_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """Claude Code's entry in catcode's settings shape (``type`` only where it is not implied)."""
    out = {key: value for key, value in entry.items() if value not in ({}, [], None)}
    if out.get("type") in ("stdio", "http"):
        del out["type"]
    return out


def _write_settings(
    target: Path, name: str, entry: dict[str, Any] | None, *, home: Path, root: Path, env: dict[str, str]
) -> None:
    from catcode.safety.settings_writer import checked_write
    from catcode.settings.config import read_settings_file

    data = read_settings_file(target)
    servers = dict(data.get("mcp_servers") or {})
    if entry is None:
        servers.pop(name, None)
    else:
        servers[name] = entry
    checked_write(target, {**data, "mcp_servers": servers}, home=home, project_root=root, env=env)
    if target == root / LOCAL_FILE:
        from catcode.settings.git_ignore import keep_out_of_git

        keep_out_of_git(root, LOCAL_FILE.as_posix())


def _allow(name: str, target: Path, home: Path, root: Path, env: dict[str, str]) -> None:
    """Record the person's yes for the server they just added to a project file."""
    sources = collect_servers(home, root, lambda line: None, env)
    items = [spec.consent_item() for spec in sources.project if spec.name == name and spec.source == target]
    ConsentStore(home).record(root, items, True)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: not valid JSON ({exc}); nothing was written") from None
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers", {}), dict):
        raise ConfigError(f'{path}: expected {{"mcpServers": {{...}}}}; nothing was written')
    return data


def _pair(item: str, sep: str, flag: str) -> tuple[str, str]:
    key, found, value = item.partition(sep)
    if not found or not key.strip():
        example = "KEY=value" if sep == "=" else '"Name: value"'
        raise ConfigError(f"{flag} {item!r}: expected {example}")
    return key.strip(), value.strip() if sep == ":" else value
