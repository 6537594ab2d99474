"""Group catcode's flat top level into subpackages by concern (issue 26, item 1); safe to run again.

Moves each module with ``git mv`` (a move already made is skipped) and rewrites every reference to the old dotted
names and paths across ``catcode/``, ``tests/``, ``scripts/`` and ``docs/``: ``import`` / ``from`` lines (the local
name a module was bound to is kept with ``as``), monkeypatch targets, ``python -m`` lines, paths in prose. After
merging a branch that still uses the old names, run it again: only old names are rewritten.

    python scripts/regroup.py
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

MOVES: dict[str, str] = {
    # cli/: the entry point (the package itself, kept light) and the command-line front end
    "cli": "cli",
    "cli_app": "cli.typer_app",
    "cli_values": "cli.values",
    "cli_help": "cli.help_text",
    "claude_args": "cli.claude_args",
    "config_cli": "cli.config_cli",
    "memory_cli": "cli.memory_cli",
    "memory_share_cli": "cli.memory_share_cli",
    "memory_transfer_cli": "cli.memory_transfer_cli",
    "doctor_cli": "cli.doctor_cli",
    "mcp.cli": "cli.mcp_cli",
    "launch": "cli.launch",
    "startup": "cli.warm",
    "first_screen": "cli.first_screen",
    "print_mode": "cli.print_mode",
    "print_events": "cli.print_events",
    "stdin_input": "cli.stdin_input",
    # settings/: what the settings say and where files are
    "config": "settings.config",
    "config_errors": "settings.config_errors",
    "settings_file": "settings.writer",
    "paths": "settings.paths",
    "project_identity": "settings.project_identity",
    "user_hook_settings": "settings.hook_settings",
    "claude_flags": "settings.claude_flags",
    "git_ignore": "settings.git_ignore",
    # safety/: what may run, and what the project may ask for
    "permissions": "safety.permissions",
    "claude_rules": "safety.claude_rules",
    "shell_parse": "safety.shell_parse",
    "shell_rules": "safety.shell_rules",
    "shell_static": "safety.shell_static",
    "shell_danger": "safety.shell_danger",
    "consent": "safety.consent",
    "project_trust": "safety.project_trust",
    "modes": "file_modes",
    # session/: the composition root and the conversation's life
    "app": "session.app",
    "agent": "session.agent",
    "messages": "session.messages",
    "prompts": "session.prompts",
    "compaction": "session.compaction",
    "tokens": "session.tokens",
    "pricing": "session.pricing",
    "resume": "session.reopen",
    "instructions": "session.instructions",
    "attachments": "session.attachments",
    "turn_attachments": "session.turn_attachments",
    "tool_batch": "session.tool_batch",
    "transcript": "session.transcript",
    "hooks": "session.hook_bus",
    "images": "session.images",
    "todos": "session.todos",
    "plan_mode": "safety.plan_mode",
    # extensions/: what a session may use beyond the built-in tools
    "extensions": "extensions.inventory",
    "user_hooks": "extensions.user_hooks",
    "hook_process": "extensions.hook_process",
    "skills": "extensions.skills",
    "mcp.serve": "mcp_server.serve",
    "mcp": "extensions.mcp",
    "subagents": "extensions.subagents",
}
"""Old dotted name under ``catcode.`` → new one. A package moves with everything in it."""

NEW_PACKAGES = ("cli", "settings", "safety", "session", "extensions", "mcp_server")
TEXT_SUFFIXES = {".py", ".md", ".sh", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".txt", ".html"}


def git(*args: str) -> None:
    subprocess.run(["git", *args], cwd=ROOT, check=True)


def source(name: str) -> Path:
    """The file or folder of dotted ``name`` (under ``catcode/``)."""
    base = ROOT / "catcode" / Path(*name.split("."))
    return base.with_suffix(".py") if base.with_suffix(".py").exists() else base


def move_files() -> None:
    for package in NEW_PACKAGES:
        (ROOT / "catcode" / package).mkdir(exist_ok=True)
    # the most specific first: mcp.serve and mcp.cli leave mcp/ before mcp/ itself moves
    for old, new in sorted(MOVES.items(), key=lambda item: -item[0].count(".")):
        if old == new:
            old_file = ROOT / "catcode" / "cli.py"
            if old_file.exists():
                git("mv", str(old_file), str(ROOT / "catcode" / "cli" / "__init__.py"))
            continue
        src = source(old)
        if not src.exists() or (src.is_dir() and (old in NEW_PACKAGES or not (src / "__init__.py").exists())):
            continue
        dst = ROOT / "catcode" / Path(*new.split("."))
        if src.suffix == ".py":
            dst = dst.with_suffix(".py")
        dst.parent.mkdir(parents=True, exist_ok=True)
        git("mv", str(src), str(dst))


def children() -> dict[str, set[str]]:
    """For each new package: the names directly in it (an old module of the same name is never followed by them)."""
    found: dict[str, set[str]] = {}
    for new in MOVES.values():
        parts = new.split(".")
        if len(parts) > 1:
            found.setdefault(parts[0], set()).add(parts[1])
    return found


def dotted_pattern() -> re.Pattern[str]:
    kids = children()
    alternatives = []
    for old in sorted(MOVES, key=len, reverse=True):
        if MOVES[old] == old:
            continue
        guard = ""
        if old in kids:  # catcode.extensions (old module) vs catcode.extensions.mcp (new package)
            names = "|".join(sorted(kids[old]))
            # the bare name is the new package: only an attribute or an import of the old module's names moves
            guard = rf"(?=\.\w| import )(?!\.(?:{names})\b)(?! import (?:{names})\b)"
        alternatives.append(re.escape(old) + r"\b" + guard)
    return re.compile(r"(?<![\w./])catcode\.(" + "|".join(alternatives) + r")")


def path_pattern() -> re.Pattern[str]:
    alternatives = []
    for old in sorted(MOVES, key=len, reverse=True):
        slashed = old.replace(".", "/")
        alternatives.append(re.escape(slashed + ".py"))
        if old in ("mcp", "subagents"):  # the packages that move whole
            alternatives.append(re.escape(slashed) + r"\b(?!\.py)")
    return re.compile(r"(?<![\w./])catcode/(" + "|".join(alternatives) + r")")


FROM_LINE = re.compile(r"^(?P<indent>[ \t]*)from (?P<base>catcode(?:\.[\w.]+)?) import (?P<names>[\w ,]+?)\s*$", re.M)


def rewrite_from(match: re.Match[str]) -> str:
    """``from catcode import a, b as c`` → one line per moved name, each keeping the local name it had."""
    indent, base = match["indent"], match["base"]
    relative = base[len("catcode.") :] if base != "catcode" else ""
    kept, lines = [], []
    for item in match["names"].split(","):
        words = item.split()
        if not words:
            continue
        name, local = words[0], words[2] if len(words) == 3 else words[0]
        old = f"{relative}.{name}" if relative else name
        if old in MOVES and MOVES[old] != old:
            package, _, leaf = f"catcode.{MOVES[old]}".rpartition(".")
            lines.append(f"{indent}from {package} import {leaf}" + (f" as {local}" if local != leaf else ""))
        else:
            kept.append(item.strip())
    if not lines:
        return match[0]
    if kept:
        lines.insert(0, f"{indent}from {base} import {', '.join(kept)}")
    return "\n".join(lines)


ESCAPED = re.compile(r"catcode\\\.((?:\w+\\\.)*\w+)")
"""A module name inside a regular expression (``catcode\\.mcp\\.manager``, in tests reading -X importtime)."""


def escaped(found: str, dotted: re.Pattern[str]) -> str:
    """``found`` (an escaped module name) with the module moved, escaped again; unchanged when it did not move."""
    plain = found.replace("\\.", ".")
    moved = dotted.sub(lambda m: "catcode." + new_name(m[1]), plain)
    return moved.replace(".", "\\.") if moved != plain else found


def rewrite(text: str, dotted: re.Pattern[str], slashed: re.Pattern[str]) -> str:
    text = FROM_LINE.sub(rewrite_from, text)
    text = dotted.sub(lambda m: "catcode." + new_name(m[1]), text)
    text = ESCAPED.sub(lambda m: escaped(m[0], dotted), text)
    return slashed.sub(lambda m: "catcode/" + new_path(m[1]), text)


def new_name(old: str) -> str:
    return MOVES[old]


def new_path(old: str) -> str:
    if old == "cli.py":
        return "cli/__init__.py"
    if old.endswith(".py"):
        key = old[:-3].replace("/", ".")
        if key not in MOVES:  # a module inside a package that moves whole
            package = next(name for name in ("mcp", "subagents") if key.startswith(name + "."))
            return MOVES[package].replace(".", "/") + old[len(package) :]
        return MOVES[key].replace(".", "/") + ".py"
    return MOVES[old.replace("/", ".")].replace(".", "/")


def rewrite_files() -> None:
    dotted, slashed = dotted_pattern(), path_pattern()
    listed = subprocess.run(
        ["git", "ls-files", "catcode", "tests", "scripts", "docs", "pyproject.toml"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    for name in listed:
        path = ROOT / name
        if path.suffix not in TEXT_SUFFIXES or not path.is_file() or path.name == "regroup.py":
            continue
        text = path.read_text(encoding="utf-8")
        changed = rewrite(text, dotted, slashed)
        if changed != text:
            path.write_text(changed, encoding="utf-8")


def main() -> None:
    move_files()
    rewrite_files()
    subprocess.run(
        [
            str(ROOT / ".venv-test" / "bin" / "ruff"),
            "check",
            "--fix",
            "-q",
            "--select",
            "I",
            "catcode",
            "tests",
            "scripts",
        ],
        cwd=ROOT,
        check=False,
    )


if __name__ == "__main__":
    main()
