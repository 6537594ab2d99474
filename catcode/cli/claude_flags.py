"""Claude Code's command-line flags, as settings of this run (the "command line" settings layer).

``--permission-mode`` takes Claude Code's spellings next to catcode's (``acceptEdits`` → ``accept-edits``,
``bypassPermissions`` → ``bypass``, ``plan`` → ``plan``); ``--dangerously-skip-permissions``
is ``bypass``; ``--allowedTools``/``--disallowedTools`` add rules (comma or space separated, Claude Code's
spellings: ``claude_rules``) for this run only; ``--add-dir`` adds ``permissions.additional_directories``;
``--max-turns`` is ``max_tool_rounds``; ``--system-prompt``/``--append-system-prompt`` replace or extend the system
prompt; ``--model sonnet|opus|haiku`` is the newest model of that family in ``catcode/data/models.toml``;
``--mcp-config FILE|JSON`` adds MCP servers in Claude Code's ``.mcp.json`` shape for this run (``mcp.sources``).

``--allowedTools``, ``--disallowedTools``, ``--add-dir`` and ``--mcp-config`` take several values (``--add-dir
../a ../b``, ``--allowedTools "Bash(git log:*)" Read``); ``variadic`` says how many of the words after one are its.
Claude Code's parser takes every word up to the next option, the PROMPT too; catcode keeps the prompt a prompt, so
that a script's ``catcode -p --allowedTools Read "$TEXT"`` can never turn the text into a rule or a server:

- the first word is always the flag's own value (``--flag=value`` is that one value, as in Claude Code);
- each following word is one more value only while it clearly is one — a rule naming a known tool, an existing
  folder, an existing file (a JSON text is a config only as the flag's own value) — and never when it is the last
  word of the command line: that is the prompt (``catcode -p --allowedTools Read "Bash"`` asks "Bash");
- ``--`` ends the options: everything after it is the prompt.

So several values before a prompt are given joined (``--allowedTools Read,Grep``), or with the flag repeated, or
with ``--`` before the prompt (docs/claude-code.md)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from catcode.errors import ConfigError

# Any: the flags become a settings layer: YAML-shaped data that pydantic validates.

CLAUDE_PERMISSION_MODES = {
    "default": "default",
    "acceptEdits": "accept-edits",
    "bypassPermissions": "bypass",
    "plan": "plan",
}
"""Claude Code's permission-mode names → catcode's."""


def permission_mode(value: str) -> str:
    """catcode's name for a permission mode given in Claude Code's or catcode's spelling (unknown names pass through
    unchanged, to be refused with the list of modes)."""
    return CLAUDE_PERMISSION_MODES.get(value, value)


def split_rules(values: list[str]) -> list[str]:
    """Rules given as ``"Bash(git log:*) Read,Edit"``: split on commas and spaces outside parentheses."""
    rules: list[str] = []
    for value in values:
        depth, current = 0, ""
        for char in value:
            if char == "(":
                depth += 1
            elif char == ")":
                depth = max(0, depth - 1)
            if depth == 0 and (char == "," or char.isspace()):
                if current.strip():
                    rules.append(current.strip())
                current = ""
                continue
            current += char
        if current.strip():
            rules.append(current.strip())
    return rules


def check_rules(flag: str, rules: list[str]) -> None:
    """``ConfigError`` naming the flag for a rule that cannot be used."""
    from catcode.safety.permission_rules import Rule

    for rule in rules:
        try:
            Rule.parse(rule).check_tool(rule)
        except ConfigError as exc:
            raise ConfigError(f"{flag}: {exc}") from None


def add_dirs(values: list[str]) -> list[str]:
    """The folders of ``--add-dir``, absolute; ``ConfigError`` for one that is not a folder."""
    folders = []
    for value in values:
        folder = Path(value).expanduser()
        if not folder.is_dir():
            raise ConfigError(f"--add-dir: {value} is not a folder")
        folders.append(str(folder.resolve()))
    return folders


def mcp_servers(values: list[str], env: dict[str, str]) -> tuple[dict[str, Any], list[str]]:
    """The servers of ``--mcp-config`` values (each a file or a JSON text in Claude Code's ``.mcp.json`` shape), as
    catcode's ``McpServerSettings`` by name, and the names of the Agent SDK's in-process servers (``{"type":
    "sdk"}``: reached through the SDK's channel); ``ConfigError`` naming the value for anything wrong."""
    from catcode.extensions.mcp.sources import claude_servers

    servers: dict[str, Any] = {}
    sdk: list[str] = []
    for value in values:
        text, where = value, "--mcp-config"
        if not value.lstrip().startswith("{"):
            path = Path(value).expanduser()
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                reason = getattr(exc, "strerror", None) or exc
                raise ConfigError(f"--mcp-config: cannot read {value}: {reason}") from None
            where = f"--mcp-config {value}"
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ConfigError(f"{where}: not valid JSON ({exc})") from None
        listed = data.get("mcpServers") if isinstance(data, dict) else None
        if isinstance(listed, dict):
            sdk += [name for name, entry in listed.items() if isinstance(entry, dict) and entry.get("type") == "sdk"]
            data = {"mcpServers": {n: e for n, e in listed.items() if n not in sdk}}
        servers.update(claude_servers(data, env, where))
    return servers, sdk


def run_overrides(
    *,
    allowed: list[str],
    disallowed: list[str],
    add_dir: list[str],
    max_turns: int | None,
    system_prompt: str | None,
    append_system_prompt: str | None,
) -> dict[str, Any]:
    """The "command line" settings layer these flags make (mode and model are given separately)."""
    overrides: dict[str, Any] = {}
    permissions: dict[str, Any] = {}
    allow, deny = split_rules(allowed), split_rules(disallowed)
    check_rules("--allowedTools", allow)
    check_rules("--disallowedTools", deny)
    if allow:
        permissions["allow"] = allow
    if deny:
        permissions["deny"] = deny
    if add_dir:
        permissions["additional_directories"] = add_dirs(add_dir)
    if permissions:
        overrides["permissions"] = permissions
    if max_turns is not None:
        overrides["max_tool_rounds"] = max_turns
    if system_prompt is not None:
        overrides["system_prompt"] = system_prompt
    if append_system_prompt is not None:
        overrides["append_system_prompt"] = append_system_prompt
    return overrides


RULE_FLAGS = {"--allowedTools", "--allowed-tools", "--disallowedTools", "--disallowed-tools"}


def variadic(flag: str, following: list[str]) -> list[str]:
    """The values of ``flag`` among ``following`` (every word after it on the command line; see the module
    docstring)."""
    taken: list[str] = []
    for index, word in enumerate(following):
        if word == "--" or (word.startswith("-") and word != "-"):
            break
        if taken and (index == len(following) - 1 or not _fits(flag, word)):
            break  # the last word of the command line is the prompt, whatever it looks like
        taken.append(word)
    return taken


def _fits(flag: str, word: str) -> bool:
    """Is ``word``, after the flag's own value, clearly one more value of ``flag``?"""
    if flag in RULE_FLAGS:
        return _is_rules(word)
    if flag == "--add-dir":
        return Path(word).expanduser().is_dir()
    return not word.lstrip().startswith("{") and Path(word).expanduser().is_file()


def _is_rules(word: str) -> bool:
    from catcode.errors import ConfigError
    from catcode.safety.permission_rules import Rule

    rules = split_rules([word])
    try:
        for rule in rules:
            Rule.parse(rule).check_tool(rule)
    except ConfigError:
        return False
    return bool(rules)


def read_text_file(flag: str, value: str) -> str:
    """The text of the file a flag names (``--system-prompt-file``); ``ConfigError`` when it cannot be read."""
    try:
        return Path(value).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{flag}: cannot read {value}: {getattr(exc, 'strerror', None) or exc}") from None


def json_value(flag: str, value: str) -> Any:
    """A flag's JSON text, or the JSON file it names; ``ConfigError`` naming the flag when it is neither."""
    text = value if value.lstrip().startswith(("{", "[")) else read_text_file(flag, value)
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{flag}: not valid JSON ({exc})") from None


def settings_overrides(run: dict[str, Any], say: Callable[[str], None]) -> dict[str, Any]:
    """The settings layer of ``--settings FILE|JSON`` (a ``settings.json`` object, read as Claude Code's settings
    files are: ``settings.claude_settings``; a rule that cannot be read is an error, as in any flag) and
    ``--no-session-persistence`` (memory off: no history is kept, nothing is captured, nothing can be resumed).
    The flags that cannot apply say why in one line (``say``)."""
    layer: dict[str, Any] = {}
    if run.get("settings"):
        data = json_value("--settings", str(run["settings"]))
        if not isinstance(data, dict):
            raise ConfigError("--settings: expected a JSON object (Claude Code's settings.json)")
        from catcode.settings.claude_settings import translate

        read = translate(data, Path("--settings"), Path.cwd())  # as a settings.json file is read
        permissions = read.data.get("permissions", {})
        for key in ("allow", "deny", "ask"):
            check_rules(f"--settings permissions.{key}", permissions.get(key, []))
        layer.update(read.data)
        if read.ignored:
            say(f"--settings: not used: {'; '.join(read.ignored)}")
    if run.get("setting_sources") is not None:
        say("--setting-sources: not applied: catcode reads every settings file it knows, its own and Claude Code's")
    if run.get("fallback_model"):
        say("--fallback-model: catcode retries the same model when it is overloaded; no fallback model is used")
    if run.get("no_persistence"):
        layer["memory"] = {"enabled": False}
    return layer


def merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    """``top`` over ``base``, dictionaries merged key by key (the flags over ``--settings``)."""
    merged = dict(base)
    for key, value in top.items():
        merged[key] = (
            merge(merged[key], value) if isinstance(value, dict) and isinstance(merged.get(key), dict) else value
        )
    return merged
