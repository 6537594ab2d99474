"""What ``catcode doctor`` says about a Claude Code setup in this home and project: what of it catcode reads, and a
line for each part it does not use, with why — so that nothing of it is ignored without a word.

Read: the settings files (``settings.sources``), the ``CLAUDE.md`` family and rules (``session.instructions``),
commands, agents and skills in ``~/.claude`` and ``.claude``, the MCP servers of ``~/.claude.json``. Not read:
output styles, plugins, key bindings (each named when present), and within the files read, each key, rule, hook or
front-matter field that catcode does not use (named by the reader that met it)."""

from __future__ import annotations

import json
from pathlib import Path

NOT_READ = {
    "output-styles": "output styles: catcode has none (its answers keep one style)",
    "plugins": "plugins: catcode installs none (their commands, agents, skills and hooks can be copied into .claude/)",
    "keybindings.json": "key bindings: catcode's keys are fixed (docs/usage.md)",
}
"""Parts of a Claude Code folder catcode does not read, and why."""


def claude_setup_lines(home: Path, root: Path, env: dict[str, str]) -> list[str]:
    """The doctor's lines about the Claude Code setup (none when there is none)."""
    from catcode.settings.claude_settings import claude_dir

    claude = claude_dir(env)
    project = root / ".claude"
    if not claude.exists() and not project.exists() and not (root / "CLAUDE.md").exists():
        return []
    lines = [_read_line(home, root, env, claude)]
    lines += [f"Claude Code settings: {note}" for note in _settings_notes(home, root, env)]
    for folder in (claude, project):
        for name, why in NOT_READ.items():
            if (folder / name).exists():
                lines.append(f"Claude Code setup: {folder / name} not read — {why}")
    lines += [f"Claude Code setup: {line}" for line in _skipped(home, root, claude)]
    return lines


def _read_line(home: Path, root: Path, env: dict[str, str], claude: Path) -> str:
    from catcode.extensions.custom_commands.definitions import discover_commands
    from catcode.extensions.mcp.sources import claude_json
    from catcode.extensions.skills.discovery import discover_skills
    from catcode.extensions.subagents.definitions import discover_agents
    from catcode.session import instructions
    from catcode.settings.sources import settings_files

    files = [f.label(root) for f in settings_files(home, root, env) if f.claude and f.path.exists()]
    loaded = instructions.load(home, root, Path.cwd(), claude)
    read = [instructions.shown(p, root, home) for p in loaded.files if "AGENTS.md" not in p.name]
    read += [f"{instructions.shown(rule.path, root, home)} (with the files it names)" for rule in loaded.conditional]
    user_cmds, project_cmds, _ = discover_commands(claude, root)
    user_agents, project_agents, _ = discover_agents(home, root, claude)
    skills = discover_skills(home, root, claude_home=claude).skills
    servers = _servers(claude_json(env))
    parts = [
        f"settings {', '.join(files) or 'none'}",
        f"instructions {', '.join(read) or 'none'}",
        f"{len(user_cmds) + len(project_cmds)} commands",
        f"{len([a for a in [*user_agents, *project_agents] if _claude_path(a.path)])} agents",
        f"{len([s for s in skills if _claude_path(s.path)])} skills",
        f"{servers} MCP servers in {claude_json(env)}",
    ]
    return "Claude Code setup read: " + "; ".join(parts)


def _settings_notes(home: Path, root: Path, env: dict[str, str]) -> list[str]:
    from catcode.errors import ConfigError
    from catcode.safety.trusted_settings import settings_layers

    notes: list[str] = []
    try:
        settings_layers(home, root, env, {}, notes=notes)
    except ConfigError as exc:
        notes.append(f"catcode's own settings cannot be read: {exc}")
    return notes


def _skipped(home: Path, root: Path, claude: Path) -> list[str]:
    """What the commands', agents' and skills' readers skipped or do not use."""
    from catcode import front_matter
    from catcode.extensions.custom_commands.definitions import discover_commands
    from catcode.extensions.skills.discovery import discover_skills
    from catcode.extensions.subagents.definitions import discover_agents

    out = [*discover_commands(claude, root)[2], *discover_agents(home, root, claude)[2]]
    skills = discover_skills(home, root, claude_home=claude)
    out += skills.warnings
    for skill in skills.skills:
        try:
            meta, _ = front_matter.read(skill.path.read_text(encoding="utf-8"), ValueError, missing="")
        except (OSError, ValueError):
            continue
        if meta.get("allowed-tools"):
            out.append(f"skill {skill.name}: allowed-tools not used (its tools ask as any other call does)")
    return out


def _servers(path: Path) -> int:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    return len(servers) if isinstance(servers, dict) else 0


def _claude_path(path: Path | None) -> bool:
    return path is not None and ".claude" in path.parts
