"""Settings (pydantic models, layered YAML) and the paths they resolve to (``catcode.settings.paths``).

Layers, lowest first: defaults < ``$CATCODE_HOME/settings.yaml`` < ``<project>/.cat-code/settings.yaml`` <
``<project>/.cat-code/settings.local.yaml`` < ``CATCODE_*`` environment variables < command-line flags.
An unknown key, a bad value (every number is bounded) or an invalid permission rule is one ``ConfigError`` naming
the file and the key, in plain words (``config_errors.py``). Permission rule lists and ``additional_dirs`` add up
across layers (a project cannot drop the user's deny rules), and what a project's files ask that would weaken the
permission prompts is used only with the person's consent (``project_trust``, which also holds the checks made on
each layer before the merge). ``settings_layers`` and ``validate_layers`` are also used by ``catcode config``
(which shows the layer of each value) and ``settings_file`` (which validates before writing).

Why the layering is hand-written rather than pydantic-settings (tried, issue 12): its sources (YAML files,
environment, init arguments) are merged into one dict before validation, so a ``ValidationError`` says
``memory.exit_timeout`` but not which file set it; the one-line "file: key: reason" error, the checks and consent
applied to each project layer before the merge, and telling which layer each value came from all need each layer's
own data — the reading and the lookup this module does now, which would stay. Its environment naming is a prefix
and a nesting delimiter (``CATCODE_PERMISSIONS__MODE``), not the documented ``CATCODE_PERMISSION_MODE``, so a
custom source would be needed too. It would replace ``_merge`` and cost a dependency and ~23 ms of import at every
start (``python -X importtime``: pydantic_settings after pydantic).

One module over the usual 250 lines while the layering is hand-written: the models, their layers and the paths
they resolve are read together whenever a setting is added."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator

from catcode.errors import ConfigError
from catcode.settings import DEFAULT_MODEL as DEFAULT_MODEL
from catcode.settings.checkpoints import CheckpointSettings
from catcode.settings.compaction import CompactConfig
from catcode.settings.hook_settings import HooksSettings
from catcode.settings.mcp import SERVER_NAME_PATTERN, McpServerSettings, McpSettings
from catcode.settings.memory import HistoryConfig, MemoryConfig
from catcode.settings.paths import Paths as Paths
from catcode.settings.paths import catcode_home as catcode_home
from catcode.settings.paths import default_user_id as default_user_id
from catcode.settings.paths import find_project_root as find_project_root
from catcode.settings.paths import make_paths
from catcode.settings.paths import project_key as project_key
from catcode.settings.paths import user_hash as user_hash
from catcode.settings.providers import BedrockSettings, ProviderName, VertexSettings
from catcode.settings.sandbox import SandboxSettings
from catcode.settings.subagents import SubagentSettings

# Any: settings files are YAML data until pydantic validates them; error locations are pydantic's.


class Section(BaseModel):
    """Base for settings sections: unknown keys are errors."""

    # No ``use_attribute_docstrings`` here or in any settings model: pydantic would then read and parse the
    # module's source for each model at import time, scanning every loaded module to find it — tens of ms on the
    # way to the first request, several times more once the SDK is loaded. The attribute docstrings are for readers.
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class PermissionsSettings(Section):
    """What tools may do without asking."""

    mode: str = "default"
    """default (ask before write and execute tools), accept-edits, read-only, bypass or plan. A project's file may set
    accept-edits or bypass only with the person's consent."""
    allow: list[str] = Field(default_factory=list)
    """Rules that never ask, e.g. ``bash(git status*)``, ``write_file(docs/**)``; every layer adds its own. A
    project's rules for bash, or for writes that may leave the project, are used only with the person's consent."""
    deny: list[str] = Field(default_factory=list)
    """Rules that always refuse; a deny rule wins over everything. Every layer adds its own."""
    ask: list[str] = Field(default_factory=list)
    """Rules that always ask, whatever the mode or an allow rule says (Claude Code's ``ask``); a deny rule still
    refuses. Every layer adds its own."""
    additional_dirs: list[str] = Field(default_factory=list)
    """Directories outside the project that file tools may read and write; a project's need consent."""
    additional_directories: list[str] = Field(default_factory=list)
    """More folders the file tools (and the bash sandbox) may use, as ``--add-dir DIR`` gives them (Claude Code's
    ``additionalDirectories``); added up across layers like ``additional_dirs``, and a project's need consent."""

    @field_validator("mode")
    @classmethod
    def _known_mode(cls, value: str) -> str:
        from catcode.settings.config_errors import check_permission_mode

        return check_permission_mode(value)


class UiSettings(Section):
    """The interactive terminal."""

    show_toolbar: bool = True
    """Show the bottom toolbar with model, permission mode and tokens."""
    result_preview_lines: int = Field(6, ge=0, le=200)
    """How many lines of each tool result are shown."""


class StatusLineSettings(Section):
    """A status line drawn by a command of yours, under the prompt (Claude Code's ``statusLine``)."""

    command: str = Field(min_length=1, max_length=10_000)
    """The shell command (``sh -c``, in the project root); it gets the session as JSON on stdin (model, workspace,
    cost...) and its first line of output is the status line."""
    padding: int = Field(0, ge=0, le=20)
    """Spaces before the line."""


class Settings(Section):
    """All settings. Every field can be set in any layer (project files may not set ``memory.dir``)."""

    model: str = Field(DEFAULT_MODEL, min_length=1, max_length=200)
    """The Claude model id for the conversation (env ``CATCODE_MODEL``)."""
    max_tokens: int = Field(8192, ge=1, le=128_000)
    """Output token limit per response (at most 128,000)."""
    max_tool_rounds: int = Field(50, ge=1, le=1000)
    """How many tool rounds one turn may take before catcode stops it."""
    max_retries: int = Field(4, ge=0, le=20)
    """Retries of a failed API request (429, 529, 5xx, connection errors) before giving up."""
    request_timeout: float = Field(600.0, gt=0, le=3600, allow_inf_nan=False)
    """Seconds before one API request is abandoned (at most an hour)."""
    api_client: Literal["auto", "sdk"] = "auto"
    """What carries API requests: ``auto`` — catcode's lean client (the standard library's HTTP, imported in
    milliseconds) wherever it covers the connection, else the official SDK (a proxy variable applies, say); ``sdk``
    — always the SDK, which takes seconds to import (env ``CATCODE_API_CLIENT``; docs/print-mode-speed.md)."""
    provider: ProviderName | None = None
    """Which service answers: ``anthropic`` (the Claude API), ``bedrock`` (Amazon Bedrock) or ``vertex`` (Google
    Vertex AI). Unset: Claude Code's ``CLAUDE_CODE_USE_BEDROCK=1`` / ``CLAUDE_CODE_USE_VERTEX=1``, else the Claude
    API. Only your own settings may set it, and the sections below (``settings/providers.py``)."""
    bedrock: BedrockSettings = Field(default_factory=BedrockSettings)
    """Amazon Bedrock's options (see ``BedrockSettings``)."""
    vertex: VertexSettings = Field(default_factory=VertexSettings)
    """Google Vertex AI's options (see ``VertexSettings``)."""
    bash_timeout: int = Field(120, ge=1, le=600)
    """Default timeout of the bash tool, in seconds."""
    permissions: PermissionsSettings = Field(default_factory=PermissionsSettings)
    """Permission mode and rules."""
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    """The fence bash commands run in (bubblewrap): ``mode``, ``network``, ``writable`` (see ``SandboxSettings``)."""
    memory: MemoryConfig = Field(default_factory=MemoryConfig)
    """Cross-session memory (see ``MemoryConfig``)."""
    history: HistoryConfig = Field(default_factory=HistoryConfig)
    """The conversation log used by memory extraction (see ``HistoryConfig``)."""
    compact: CompactConfig = Field(default_factory=CompactConfig)
    """Context compaction (see ``CompactConfig``)."""
    skills_enabled: bool = True
    """Discover skills and offer them to the model."""
    input_history: bool = True
    """Keep the lines typed at the prompt (redacted) in ``$CATCODE_HOME/input-history/`` for Up to recall across
    sessions; false keeps them in memory for this session only."""
    ui: UiSettings = Field(default_factory=UiSettings)
    """Terminal settings."""
    mcp_servers: dict[Annotated[str, StringConstraints(pattern=SERVER_NAME_PATTERN)], McpServerSettings] = Field(
        default_factory=dict
    )
    """MCP servers by name; their tools are offered as ``mcp__<name>__<tool>``. Project ones need your consent."""
    mcp: McpSettings = Field(default_factory=McpSettings)
    """How a message sent before the MCP servers are ready waits for them (see ``McpSettings``)."""
    hooks: HooksSettings = Field(default_factory=HooksSettings)
    """Shell commands run at points of the session (user hooks first, then the project's, after consent)."""
    subagents: SubagentSettings = Field(default_factory=SubagentSettings)
    """The ``task`` tool's subagents (see ``SubagentSettings``)."""
    checkpoints: CheckpointSettings = Field(default_factory=CheckpointSettings)
    """Snapshots of the project's files for ``/rewind`` (see ``CheckpointSettings``)."""
    env: dict[Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")], str] = Field(default_factory=dict)
    """Environment variables set for the session (Claude Code's ``env``): catcode, its bash commands, hooks and MCP
    servers see them; they win over the shell's. A project's need your consent."""
    status_line: StatusLineSettings | None = None
    """A command whose output is the line under the prompt (see ``StatusLineSettings``); a project's needs your
    consent."""
    # -- Claude Code's --system-prompt / --append-system-prompt (docs/claude-code.md) --
    system_prompt: str | None = Field(None, max_length=100_000)
    """Replaces catcode's base system prompt (project instructions and memory guidance still follow it)."""
    append_system_prompt: str | None = Field(None, max_length=100_000)
    """Added at the end of the system prompt."""


ENV_VARS: dict[str, tuple[str, ...]] = {
    "CATCODE_MODEL": ("model",),
    "CATCODE_PERMISSION_MODE": ("permissions", "mode"),
    "CATCODE_USER_ID": ("memory", "user_id"),
    "CATCODE_MEMORY_ENABLED": ("memory", "enabled"),
    "CATCODE_MEMORY_MODEL": ("memory", "model"),
    "CATCODE_MAX_RETRIES": ("max_retries",),
    "CATCODE_API_CLIENT": ("api_client",),
}
"""Environment variables and the setting each one sets."""


def project_settings_files(project_root: Path) -> list[Path]:
    """The project's settings files, lowest layer first (they are not trusted: see ``catcode.settings.consent``)."""
    return [project_root / ".cat-code" / name for name in ("settings.yaml", "settings.local.yaml")]


def read_settings_file(path: Path) -> dict[str, Any]:
    """One settings file's raw mapping ({} when it does not exist); ``ConfigError`` naming the file (and the line,
    for invalid YAML) when it cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"Cannot read {path}: {exc}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise ConfigError(f"{path}{where}: invalid YAML ({getattr(exc, 'problem', exc)})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of settings at the top level")
    return data


ACCUMULATED = (
    ("permissions", "allow"), ("permissions", "deny"), ("permissions", "ask"), ("permissions", "additional_dirs"),
    ("permissions", "additional_directories"), ("sandbox", "writable"), ("sandbox", "hidden"), ("sandbox", "readable"),
    ("sandbox", "env"),
)  # fmt: skip
"""Lists that every layer adds to instead of replacing."""


def _merge(base: dict[str, Any], top: dict[str, Any], path: tuple[str, ...] = ()) -> dict[str, Any]:
    out = dict(base)
    for key, value in top.items():
        here = (*path, key)
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value, here)
        elif here in ACCUMULATED and isinstance(value, list) and isinstance(out.get(key), list):
            out[key] = out[key] + [item for item in value if item not in out[key]]
        else:
            out[key] = value
    return out


def set_key(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    """Set ``data[path[0]][path[1]]...`` to ``value``, making the dictionaries on the way."""
    for part in path[:-1]:
        data = data.setdefault(part, {})
    data[path[-1]] = value


def has_key(data: Any, loc: tuple[Any, ...]) -> bool:
    """Whether a layer's ``data`` sets the key at ``loc`` (a validation error's location)."""
    for part in loc:
        if not (isinstance(data, dict) and part in data):
            # Lists add up across layers: the layer that has the list is the one to name (e.g. hooks.PreToolUse.0).
            return isinstance(data, list) and isinstance(part, int)
        data = data[part]
    return True


Layer = tuple[str, dict[str, Any]]
"""A settings layer: its name (a file path, ``environment`` or ``command line``) and its data."""


def validate_layers(layers: list[Layer]) -> Settings:
    """Merge ``layers`` and validate once; an error names the layer and key that caused it, in plain words."""
    from catcode.settings.config_errors import describe

    merged: dict[str, Any] = {}
    for _, data in layers:
        merged = _merge(merged, data)
    try:
        return Settings.model_validate(merged)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        key = ".".join(str(p) for p in loc)
        source = next((name for name, data in reversed(layers) if has_key(data, loc)), "settings")
        raise ConfigError(f"{source}: {key}: {describe(err)}") from None


def resolve_paths(settings: Settings, home: Path, project_root: Path) -> Paths:
    """Where everything lives for these settings."""
    key = None
    if settings.memory.project_key == "git-remote":
        from catcode.settings.project_identity import remote_project_key

        key = remote_project_key(project_root)
    return make_paths(
        home, project_root, memory_dir=settings.memory.dir, user_id=settings.memory.user_id, project_key=key
    )
