"""Subagent definitions in Claude Code's format: ``~/.claude/agents/NAME.md`` and ``$CATCODE_HOME/agents/NAME.md``
(the user's), ``<project>/.claude/agents/NAME.md`` and ``<project>/.cat-code/agents/NAME.md`` (the project's; they
replace a user definition of the same name, and at each scope catcode's folder wins over Claude Code's).

```markdown
---
name: code-reviewer
description: Reviews a change for bugs and missing tests. Use after writing code.
tools: Read, Grep, Glob        # optional: a comma-separated list or a YAML list
model: haiku                   # optional: sonnet, opus, haiku, inherit, or a model id
---
You are a careful reviewer... (the body is the subagent's system prompt)
```
Without ``tools`` a subagent gets the read-only tools (``Read``, ``Glob``, ``Grep``, ``memory_search``,
``memory_read``). Tools are named as the model sees them (Claude Code's names: Read, Grep, Glob, Edit, Write, Bash),
by catcode's earlier names (``read_file``...) or Claude Code's other ones (LS, MultiEdit); ``mcp__server__tool``
names work as they are. A project definition that grants more than
read-only tools is used only after one-time consent (``consent_item``). A broken file is skipped with a warning."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from catcode import front_matter
from catcode.log import get_logger
from catcode.names import name_problem
from catcode.settings.consent import ConsentItem
from catcode.tools.base import Permission
from catcode.tools.facts import SUBAGENT_DEFAULT_TOOLS, canonical

# Any: an agent given as data (the Agent SDK's, --agents) is JSON.

log = get_logger(__name__)

BUILTIN_NAME = "general-purpose"
BUILTIN_PROMPT = """Do the task you are given: search and read the code to find what it asks for, and report what \
you found — file paths, names, the relevant lines — in a complete and concise answer."""
DEFAULT_TOOLS = SUBAGENT_DEFAULT_TOOLS
MODEL_ALIASES = {"sonnet": "claude-sonnet-5-5", "opus": "claude-opus-5-5", "haiku": "claude-haiku-5-5"}
MAX_FILE_BYTES = 128 * 1024


@dataclass(frozen=True)
class AgentDefinition:
    """One subagent: its name, when to use it, its tools and model, and its system prompt."""

    name: str
    description: str
    prompt: str
    tools: tuple[str, ...] = DEFAULT_TOOLS  # catcode tool names
    model: str | None = None  # None: the session's model
    source: str = "built-in"  # "user", "project" or "built-in"
    path: Path | None = None
    text: str = ""  # the file as read: what consent is given to

    def grants_more_than_read(self, permission_of: Callable[[str], Permission | None]) -> bool:
        """Does it list a tool that writes or runs commands (or one not known yet, such as an MCP tool)? The
        default tools are read-only even when absent (memory turned off)."""
        return any(
            permission_of(name) is not Permission.READ and not (name in DEFAULT_TOOLS and permission_of(name) is None)
            for name in self.tools
        )

    def consent_item(self) -> ConsentItem:
        """What the person is asked about for a project definition with more than read-only tools."""
        return ConsentItem(
            kind="agent",
            key=f"agent {self.name}",
            summary=f"subagent {self.name} with tools {', '.join(self.tools)} ({_shown(self.path)})"
            if self.path
            else f"subagent {self.name}",
            content=self.text,
        )


BUILTIN = AgentDefinition(
    BUILTIN_NAME,
    "Searches and reads the project to answer a question or gather facts (read-only tools).",
    BUILTIN_PROMPT,
)


@dataclass
class AgentSet:
    """The definitions in use, and why others were skipped."""

    agents: dict[str, AgentDefinition] = field(default_factory=lambda: {BUILTIN_NAME: BUILTIN})
    warnings: list[str] = field(default_factory=list)

    def get(self, name: str) -> AgentDefinition | None:
        """The definition called ``name``, if any."""
        return self.agents.get(name)

    def names(self) -> list[str]:
        """Names, sorted."""
        return sorted(self.agents)


def discover_agents(
    home: Path, project_root: Path, claude_home: Path | None = None
) -> tuple[list[AgentDefinition], list[AgentDefinition], list[str]]:
    """User definitions, project definitions (each lowest first: Claude Code's folder, then catcode's) and one
    warning per skipped file. ``claude_home``: Claude Code's folder of the person's files (``~/.claude``)."""
    warnings: list[str] = []
    user_dirs = [*([claude_home / "agents"] if claude_home else []), home / "agents"]
    project_dirs = [project_root / ".claude" / "agents", project_root / ".cat-code" / "agents"]
    mine = {folder.resolve() for folder in user_dirs}
    user = [agent for folder in user_dirs for agent in _scan(folder, "user", warnings)]
    project = [agent for f in project_dirs if f.resolve() not in mine for agent in _scan(f, "project", warnings)]
    return user, project, warnings


def _shown(path: Path) -> str:
    """``.claude/agents/x.md`` or ``.cat-code/agents/x.md``: the folder that holds it, as a project names it."""
    return f"{path.parent.parent.name}/{path.parent.name}/{path.name}"


def _scan(folder: Path, source: str, warnings: list[str]) -> list[AgentDefinition]:
    try:
        files = sorted(p for p in folder.iterdir() if p.suffix == ".md" and not p.name.startswith("."))
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        warnings.append(f"Skipped subagents in {folder}: {exc.strerror or exc}")
        return []
    found = []
    for path in files:
        try:
            found.append(parse_definition(path, source))
        except ValueError as exc:
            log.warning("subagent_skipped", path=str(path), reason=str(exc))
            warnings.append(f"Skipped subagent {path}: {exc}")
    return found


def parse_definition(path: Path, source: str) -> AgentDefinition:
    """Read one definition file; ``ValueError`` says what is wrong with it."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ValueError(f"larger than {MAX_FILE_BYTES // 1024} KB")
        text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read it ({exc})") from None
    missing = "no front matter between '---' lines"
    meta, body = front_matter.read(text.replace("\r\n", "\n"), ValueError, missing=missing)
    name = meta.get("name", path.stem)
    if problem := name_problem(name):
        raise ValueError(f"name {name!r} {problem}")
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise ValueError("the front matter has no description")
    prompt = body.strip()
    if not prompt:
        raise ValueError("the body (the subagent's system prompt) is empty")
    return AgentDefinition(
        name=name,
        description=" ".join(description.split()),
        prompt=prompt,
        tools=_tools(meta.get("tools")),
        model=_model(meta.get("model")),
        source=source,
        path=path,
        text=text,
    )


def definition_from(name: str, spec: Any) -> AgentDefinition:
    """A subagent given as data (the Agent SDK's ``agents``, ``--agents``: ``{description, prompt, tools, model}``);
    ``ValueError`` says what is wrong with it."""
    if problem := name_problem(name):
        raise ValueError(f"name {name!r} {problem}")
    if not isinstance(spec, dict):
        raise ValueError("expected an object with description and prompt")
    description, prompt = spec.get("description"), spec.get("prompt")
    if not isinstance(description, str) or not description.strip():
        raise ValueError("no description")
    if not isinstance(prompt, str) or not prompt.strip():
        raise ValueError("no prompt")
    tools = _tools(spec.get("tools"))
    denied = {canonical(t) or t for t in spec.get("disallowedTools") or [] if isinstance(t, str)}
    kept = tuple(t for t in tools if t not in denied)
    return AgentDefinition(name, " ".join(description.split()), prompt.strip(), kept, _model(spec.get("model")), "sdk")


def _tools(raw: object) -> tuple[str, ...]:
    if raw is None:
        return DEFAULT_TOOLS
    items = raw.split(",") if isinstance(raw, str) else raw if isinstance(raw, list) else None
    if items is None or not all(isinstance(item, str) for item in items):
        raise ValueError("tools must be a comma-separated list or a YAML list of tool names")
    names = [canonical(item.strip()) or item.strip() for item in items if item.strip()]
    return tuple(dict.fromkeys(names))


def _model(raw: object) -> str | None:
    if raw is None or raw == "inherit":
        return None
    if not isinstance(raw, str) or not raw.strip():
        raise ValueError("model must be sonnet, opus, haiku, inherit or a model id")
    return MODEL_ALIASES.get(raw.strip(), raw.strip())


def combine(
    user: list[AgentDefinition],
    project: list[AgentDefinition],
    warnings: list[str],
    allowed: Callable[[AgentDefinition], bool],
) -> AgentSet:
    """The built-in, then user definitions, then the project's that are ``allowed`` (replacing same-named ones)."""
    agents = {BUILTIN_NAME: BUILTIN}
    for definition in user:
        agents[definition.name] = definition
    for definition in project:
        if allowed(definition):
            agents[definition.name] = definition
    return AgentSet(agents, list(warnings))
