"""What a session may use beyond the built-in tools — MCP servers, user hooks, subagent definitions, custom
commands — from the user's own files and from the project's, the project's gated by one consent question
(``catcode.settings.consent``).

Trusted: ``$CATCODE_HOME`` and ``~/.claude`` (settings, agents, commands), ``~/.claude.json``. Not trusted:
``<project>/.mcp.json``, ``mcp_servers`` and ``hooks`` in the project's settings files (``.cat-code/settings*.yaml``,
``.claude/settings*.json``: they run commands), project subagent definitions that grant more than read-only tools, and
project commands that run ``!`` lines or pre-approve tools. Those are asked about together, once per project and per
content; the answers live in the user's ``$CATCODE_HOME/consent.yaml``, never in the project. Without an asker
(print mode, piped input) nothing unanswered is used, and one line says so."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from catcode.errors import ConfigError
from catcode.extensions.custom_commands.definitions import CommandSet, discover_commands
from catcode.extensions.custom_commands.definitions import combine as combine_commands
from catcode.extensions.mcp.sources import ServerSources, ServerSpec, collect_servers
from catcode.extensions.subagents.definitions import AgentDefinition, AgentSet, combine, discover_agents
from catcode.safety.project_trust import shown_path
from catcode.settings.claude_settings import claude_dir
from catcode.settings.config import Paths
from catcode.settings.consent import Asker, ConsentItem, ConsentStore, gate
from catcode.settings.hook_settings import UserHook, hooks_from
from catcode.tools.base import Permission, ToolRegistry

if TYPE_CHECKING:
    from catcode.session.parts import SessionBuilder


@dataclass
class Extensions:
    """What this session uses, after consent, and what it left out."""

    servers: list[ServerSpec] = field(default_factory=list)
    hooks: list[UserHook] = field(default_factory=list)
    agents: AgentSet = field(default_factory=AgentSet)
    commands: CommandSet = field(default_factory=CommandSet)
    refused_servers: list[str] = field(default_factory=list)  # names of project servers not allowed
    refused_agents: list[str] = field(default_factory=list)


def hook_item(hook: UserHook, project_root: Path) -> ConsentItem:
    """What the person is asked about for a project hook."""
    return ConsentItem(
        kind="hook",
        key=f"{hook.event} {hook.spec.command}",
        summary=f"hook {hook.label} ({shown_path(str(hook.source), project_root)})",
        content=f"{hook.event}\n{hook.spec.model_dump_json(exclude_none=True)}",
    )


def collect_hooks(
    home: Path, project_root: Path, env: Mapping[str, str] | None = None
) -> tuple[list[UserHook], list[UserHook]]:
    """The user's hooks (Claude Code's file, catcode's, the managed policy's) and the project's (``.claude/`` and
    ``.cat-code/``), in layer order."""
    from catcode.settings.sources import settings_files

    user: list[UserHook] = []
    project: list[UserHook] = []
    for source in settings_files(home, project_root, env):
        data, _ = source.read(project_root)
        (project if source.from_project else user).extend(_hooks_of(source.path, data.get("hooks")))
    return user, project


def _hooks_of(path: Path, raw: object) -> list[UserHook]:
    try:
        return hooks_from(raw, path)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ConfigError(f"{path}: hooks.{'.'.join(map(str, err['loc']))}: {err['msg']}") from None


def gather(
    paths: Paths,
    tools: ToolRegistry,
    ask: Asker | None,
    notify: Callable[[str], None],
    env: Mapping[str, str] | None = None,
    *,
    subagents: bool = True,
) -> Extensions:
    """Collect everything, ask about the project's new items in one question, and keep what may be used."""
    servers: ServerSources = collect_servers(paths.home, paths.project_root, notify, env)
    user_hooks, project_hooks = collect_hooks(paths.home, paths.project_root, env)
    user_agents, project_agents, warnings = (
        discover_agents(paths.home, paths.project_root, claude_dir(env)) if subagents else ([], [], [])
    )

    def permission_of(name: str) -> Permission | None:
        tool = tools.get(name)
        return tool.permission if tool is not None else None

    gated_agents = [a for a in project_agents if a.grants_more_than_read(permission_of)]
    user_commands, project_commands, command_warnings = discover_commands(claude_dir(env), paths.project_root)
    gated_commands = [c for c in project_commands if c.needs_consent()]
    items = [spec.consent_item() for spec in servers.project]
    items += [hook_item(hook, paths.project_root) for hook in project_hooks]
    items += [agent.consent_item() for agent in gated_agents]
    items += [c.consent_item(shown_path(str(c.path), paths.project_root)) for c in gated_commands]
    allowed = {item.id for item in gate(ConsentStore(paths.home), paths.project_root, items, ask, notify)}
    commands_allowed = {c.name for c in gated_commands if f"command:command {c.name}" in allowed}

    def agent_allowed(agent: AgentDefinition) -> bool:
        return agent not in gated_agents or agent.consent_item().id in allowed

    return Extensions(
        servers=servers.effective(allowed),
        hooks=user_hooks + [hook for hook in project_hooks if hook_item(hook, paths.project_root).id in allowed],
        agents=combine(user_agents, project_agents, warnings, agent_allowed),
        commands=combine_commands(user_commands, project_commands, command_warnings, commands_allowed),
        refused_servers=[s.name for s in servers.project if s.consent_item().id not in allowed],
        refused_agents=[a.name for a in gated_agents if not agent_allowed(a)],
    )


class InventoryPart:
    """Gathers the session's ``Extensions`` (``session.parts.SessionPart``), asking one consent question, for the
    user hooks, MCP and subagents parts attached after it. Attached before the plan-mode and todo tools: a project
    subagent is judged by the tools it names, and those two are never a reason to ask."""

    def __init__(self) -> None:
        self.found = Extensions()  # set by ``attach``

    def attach(self, builder: SessionBuilder) -> None:
        """Collect the user's and the project's servers, hooks and subagent definitions; keep what may be used."""
        self.found = gather(
            builder.paths, builder.tools, builder.ask_consent, builder.notify, builder.env,
            subagents=builder.settings.subagents.enabled,
        )  # fmt: skip
        builder.extensions = self.found
