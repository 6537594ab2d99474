"""Claude Code's settings files, read as catcode settings layers (``docs/claude-code.md``).

Claude Code keeps its settings in JSON: ``~/.claude/settings.json`` (``$CLAUDE_CONFIG_DIR/settings.json``),
``<project>/.claude/settings.json``, ``<project>/.claude/settings.local.json`` and the managed-policy file an
organisation installs (``MANAGED_SETTINGS``). ``read_claude_file`` turns one of them into the layer catcode would
have read from its own YAML, and says what it did not take and why. What maps:

- ``permissions.allow`` / ``deny`` / ``ask``: the rules as they are (``permission_rules`` reads Claude Code's
  spellings); ``permissions.defaultMode``: ``permissions.mode`` (``acceptEdits`` → ``accept-edits``,
  ``bypassPermissions`` → ``bypass``, ``plan``, ``default``); ``permissions.additionalDirectories``:
  ``permissions.additional_directories`` (relative ones from the project's root, or from the home folder);
- ``hooks``: Claude Code's own shape (``{matcher, hooks: [{type: command, command, timeout}]}``), for the events
  catcode runs (``hook_settings.EVENTS``); other events and other hook types are left out, each named;
- ``env``: ``env`` (values as text); ``statusLine`` (``{type: command, command, padding}``): ``status_line``;
- ``model``: ``model`` (``sonnet``, ``opus``, ``haiku`` and full ids; ``opusplan`` is read as ``opus``, a
  ``[1m]`` suffix is dropped).

Every other key is left out and named in ``ClaudeFile.ignored`` (``catcode doctor`` and ``catcode config`` show
them, one line per file); ``$schema`` needs no word. A file that is not valid JSON is left out whole, with one line
saying why — never an error that stops the session: a hook or a value that would not validate is left out alone,
named the same way. Importing this module stays cheap (the first screen reads ``claude_dir`` and
``MANAGED_SETTINGS`` before pydantic is loaded)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Any: settings files are JSON data, translated key by key into catcode's YAML-shaped layer.

CLAUDE_MODES = {
    "default": "default",
    "acceptEdits": "accept-edits",
    "bypassPermissions": "bypass",
    "plan": "plan",
}
"""Claude Code's permission-mode names → catcode's."""
CLAUDE_MODE_NAMES = {mode: claude for claude, mode in CLAUDE_MODES.items()}
"""catcode's permission modes → Claude Code's names (``permission_mode`` in hook inputs, ``permissionMode``)."""
MANAGED_SETTINGS = (
    Path("/Library/Application Support/ClaudeCode/managed-settings.json")
    if sys.platform == "darwin"
    else Path("/etc/claude-code/managed-settings.json")
)
"""Where Claude Code reads an organisation's managed policy (Linux and WSL; macOS)."""
SILENT = frozenset({"$schema"})
"""Keys that say nothing about behaviour: left out without a word."""
ELSEWHERE = {
    "autoMemoryDirectory": "read by `catcode memory import claude`",
    "enabledMcpjsonServers": "catcode asks its own question about a project's .mcp.json servers",
    "enableAllProjectMcpServers": "catcode asks its own question about a project's .mcp.json servers",
    "disabledMcpjsonServers": "catcode asks its own question about a project's .mcp.json servers",
    "sandbox": "catcode's own fence is set with sandbox: in its settings (docs/sandbox.md)",
    "apiKeyHelper": "set ANTHROPIC_API_KEY (or env: in the settings) instead",
}
"""Keys with a reason of their own for being left out."""


@dataclass
class ClaudeFile:
    """One Claude Code settings file as a catcode layer."""

    path: Path
    data: dict[str, Any] = field(default_factory=dict)
    """The layer, in catcode's keys."""
    ignored: list[str] = field(default_factory=list)
    """What was left out, each ``key (why)``."""
    problem: str = ""
    """Why the whole file was left out ("" when it was read)."""

    def note(self) -> str | None:
        """One line naming what was left out, or None when everything was read."""
        if self.problem:
            return f"{self.path}: not read ({self.problem})"
        if self.ignored:
            return f"{self.path}: not used: {'; '.join(self.ignored)}"
        return None


def claude_dir(env: Mapping[str, str] | None = None) -> Path:
    """Claude Code's folder of the person's own files: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    raw = (os.environ if env is None else env).get("CLAUDE_CONFIG_DIR")
    return Path(raw).expanduser() if raw else Path.home() / ".claude"


def read_claude_file(path: Path, anchor: Path) -> ClaudeFile:
    """``path`` read and translated; ``anchor`` is the folder relative ``additionalDirectories`` start from."""
    result = ClaudeFile(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return result
    except (OSError, UnicodeDecodeError) as exc:
        result.problem = f"cannot read it: {getattr(exc, 'strerror', None) or exc}"
        return result
    if not text.strip():
        return result
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        result.problem = f"invalid JSON at line {exc.lineno}: {exc.msg}"
        return result
    if not isinstance(raw, dict):
        result.problem = "expected a JSON object at the top level"
        return result
    return translate(raw, path, anchor)


def translate(raw: dict[str, Any], path: Path, anchor: Path) -> ClaudeFile:
    """A ``settings.json`` object (a file's, ``--settings``') as a catcode layer, with what was left out."""
    result = ClaudeFile(path)
    for key, value in raw.items():
        take = TAKE.get(key)
        if take is not None:
            take(value, result, anchor)
        elif key in ELSEWHERE:
            result.ignored.append(f"{key} ({ELSEWHERE[key]})")
        elif key not in SILENT:
            result.ignored.append(f"{key} (no catcode equivalent)")
    return result


def _model(value: Any, out: ClaudeFile, anchor: Path) -> None:
    if not isinstance(value, str) or not value.strip():
        out.ignored.append("model (expected a model name)")
        return
    name = value.strip()
    if name.endswith("[1m]"):
        name = name[: -len("[1m]")]
        out.ignored.append("model's [1m] (the context window is the model's own)")
    if name == "opusplan":
        name = "opus"
        out.ignored.append("model opusplan (read as opus: catcode has no plan-mode model switch)")
    if name == "default":
        out.ignored.append("model default (catcode's own default is used)")
        return
    out.data["model"] = name


def _permissions(value: Any, out: ClaudeFile, anchor: Path) -> None:
    if not isinstance(value, dict):
        out.ignored.append("permissions (expected an object)")
        return
    kept: dict[str, Any] = {}
    for key, item in value.items():
        if key in ("allow", "deny", "ask"):
            if isinstance(item, list):
                kept[key] = [rule for rule in item if isinstance(rule, str)]
                dropped = len(item) - len(kept[key])
                if dropped:
                    out.ignored.append(f"permissions.{key}: {dropped} entries that are not text")
            else:
                out.ignored.append(f"permissions.{key} (expected a list of rules)")
        elif key == "defaultMode":
            mode = CLAUDE_MODES.get(item) if isinstance(item, str) else None
            if mode is None:
                out.ignored.append(f"permissions.defaultMode {item!r} (catcode's modes: {', '.join(CLAUDE_MODES)})")
            else:
                kept["mode"] = mode
        elif key == "additionalDirectories":
            folders = (
                [str(anchor / Path(f).expanduser()) for f in item if isinstance(f, str)]
                if isinstance(item, list)
                else []
            )
            if folders:
                kept["additional_directories"] = folders
            if not isinstance(item, list) or len(folders) != len(item):
                out.ignored.append("permissions.additionalDirectories entries that are not folder names")
        else:
            out.ignored.append(f"permissions.{key} (no catcode equivalent)")
    if kept:
        out.data["permissions"] = kept


def _hooks(value: Any, out: ClaudeFile, anchor: Path) -> None:
    from catcode.settings.hook_settings import EVENTS

    if not isinstance(value, dict):
        out.ignored.append("hooks (expected an object of events)")
        return
    kept: dict[str, list[dict[str, Any]]] = {}
    for event, groups in value.items():
        if event not in EVENTS:
            out.ignored.append(f"hooks.{event} (an event catcode does not have)")
            continue
        if not isinstance(groups, list):
            out.ignored.append(f"hooks.{event} (expected a list)")
            continue
        for group in groups:
            kept.setdefault(event, []).extend(_hook_group(event, group, out))
    if kept:
        out.data["hooks"] = kept


def _hook_group(event: str, group: Any, out: ClaudeFile) -> list[dict[str, Any]]:
    """One ``{matcher, hooks: [...]}`` group as catcode's flat hooks, each checked on its own."""
    from pydantic import ValidationError

    from catcode.settings.hook_settings import HookCommand

    if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
        out.ignored.append(f"hooks.{event}: an entry without a hooks list")
        return []
    matcher = group.get("matcher") or ""
    flat = []
    for inner in group["hooks"]:
        kind = inner.get("type", "command") if isinstance(inner, dict) else None
        if kind != "command":
            out.ignored.append(f"hooks.{event}: a {kind or 'malformed'} hook (catcode runs command hooks)")
            continue
        hook = {"matcher": matcher if isinstance(matcher, str) else ""}
        for key in ("command", "timeout", "if"):
            if key in inner:
                hook[key] = inner[key]
        extra = sorted(set(inner) - {"type", "command", "timeout", "if"})
        if extra:
            out.ignored.append(f"hooks.{event}: {', '.join(extra)} of `{inner.get('command', '')}`")
        try:
            HookCommand.model_validate(hook)
        except ValidationError as exc:
            err = exc.errors()[0]
            out.ignored.append(f"hooks.{event}: `{inner.get('command', '')}` ({'.'.join(map(str, err['loc']))}: "
                               f"{err['msg']})")  # fmt: skip
            continue
        flat.append(hook)
    return flat


def _env(value: Any, out: ClaudeFile, anchor: Path) -> None:
    if not isinstance(value, dict):
        out.ignored.append("env (expected an object of variables)")
        return
    kept = {}
    for name, item in value.items():
        if not (isinstance(name, str) and name.isidentifier() and isinstance(item, str | int | float | bool)):
            out.ignored.append(f"env.{name} (expected a variable name and a text value)")
            continue
        kept[name] = str(item).lower() if isinstance(item, bool) else str(item)
    if kept:
        out.data["env"] = kept


def _status_line(value: Any, out: ClaudeFile, anchor: Path) -> None:
    command = value.get("command") if isinstance(value, dict) else None
    if not isinstance(value, dict) or value.get("type", "command") != "command" or not isinstance(command, str):
        out.ignored.append("statusLine (catcode draws a command's output: {type: command, command})")
        return
    line: dict[str, Any] = {"command": command}
    padding = value.get("padding")
    if isinstance(padding, int) and 0 <= padding <= 20:
        line["padding"] = padding
    out.data["status_line"] = line


TAKE = {
    "model": _model,
    "permissions": _permissions,
    "hooks": _hooks,
    "env": _env,
    "statusLine": _status_line,
}
"""The keys catcode reads, and how."""
