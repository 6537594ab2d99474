"""Settings (pydantic models, layered YAML) and the paths catcode uses.

Layers, lowest first: defaults < ``$CATCODE_HOME/settings.yaml`` < ``<project>/.cat-code/settings.yaml`` <
``<project>/.cat-code/settings.local.yaml`` < ``CATCODE_*`` environment variables < command-line flags.
An unknown key or a bad value is one ``ConfigError`` naming the file and the key.

Why the layering is hand-written rather than pydantic-settings (tried, issue 12): its sources (YAML files,
environment, init arguments) are merged into one dict before validation, so a ``ValidationError`` says
``memory.exit_timeout`` but not which file set it; the one-line "file: key: reason" error, the rule that a project
file may not set ``memory.dir`` (and a project layer's other checks), and telling which layer each value came from
all need each layer's own data — the reading and the lookup this module does now, about 60 lines that would stay.
Its environment naming is a prefix and a nesting delimiter (``CATCODE_PERMISSIONS__MODE``), not the documented
``CATCODE_PERMISSION_MODE``, so a custom source would be needed too. It would replace ``_merge`` (5 lines) and cost
a dependency and ~23 ms of import at every start (``python -X importtime``: pydantic_settings after pydantic).

One module over the usual 250 lines while the layering is hand-written: the models, their layers and the paths
they resolve are read together whenever a setting is added."""

from __future__ import annotations

import getpass
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from catcode.compaction import CompactConfig
from catcode.errors import ConfigError
from catcode.memory.pipeline.history import HistoryConfig
from catcode.memory.store.models import MemoryConfig

DEFAULT_MODEL = "claude-sonnet-5-5"
"""A current Sonnet from the installed SDK's model list."""


class Section(BaseModel):
    """Base for settings sections: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, use_attribute_docstrings=True)


class PermissionsSettings(Section):
    """What tools may do without asking."""

    mode: str = Field("default", pattern="^(default|accept-edits|read-only|bypass)$")
    """default (ask before write and execute tools), accept-edits, read-only or bypass."""
    allow: list[str] = Field(default_factory=list)
    """Rules that never ask, e.g. ``bash(git status*)``, ``write_file(docs/**)``."""
    deny: list[str] = Field(default_factory=list)
    """Rules that always refuse; a deny rule wins over everything."""
    additional_dirs: list[str] = Field(default_factory=list)
    """Directories outside the project that file tools may read and write."""


class UiSettings(Section):
    """The interactive terminal."""

    show_toolbar: bool = True
    """Show the bottom toolbar with model, permission mode and tokens."""
    result_preview_lines: int = Field(6, ge=0, le=200)
    """How many lines of each tool result are shown."""


class Settings(Section):
    """All settings. Every field can be set in any layer (project files may not set ``memory.dir``)."""

    model: str = DEFAULT_MODEL
    """The Claude model id for the conversation (env ``CATCODE_MODEL``)."""
    max_tokens: int = Field(8192, ge=1)
    """Output token limit per response."""
    max_tool_rounds: int = Field(50, ge=1)
    """How many tool rounds one turn may take before catcode stops it."""
    max_retries: int = Field(4, ge=0, le=20)
    """Retries of a failed API request (429, 529, 5xx, connection errors) before giving up."""
    request_timeout: float = Field(600.0, gt=0)
    """Seconds before one API request is abandoned."""
    bash_timeout: int = Field(120, ge=1, le=600)
    """Default timeout of the bash tool, in seconds."""
    permissions: PermissionsSettings = Field(default_factory=PermissionsSettings)
    """Permission mode and rules."""
    memory: MemoryConfig = Field(default_factory=MemoryConfig)
    """Cross-session memory (see ``MemoryConfig``)."""
    history: HistoryConfig = Field(default_factory=HistoryConfig)
    """The conversation log used by memory extraction (see ``HistoryConfig``)."""
    compact: CompactConfig = Field(default_factory=CompactConfig)
    """Context compaction (see ``CompactConfig``)."""
    skills_enabled: bool = True
    """Discover skills and offer them to the model."""
    ui: UiSettings = Field(default_factory=UiSettings)
    """Terminal settings."""


ENV_VARS: dict[str, tuple[str, ...]] = {
    "CATCODE_MODEL": ("model",),
    "CATCODE_PERMISSION_MODE": ("permissions", "mode"),
    "CATCODE_USER_ID": ("memory", "user_id"),
    "CATCODE_MEMORY_ENABLED": ("memory", "enabled"),
    "CATCODE_MEMORY_MODEL": ("memory", "model"),
    "CATCODE_MAX_RETRIES": ("max_retries",),
}
"""Environment variables and the setting each one sets."""


def catcode_home(env: dict[str, str] | None = None) -> Path:
    """``$CATCODE_HOME`` or ``~/.cat-code``."""
    env = os.environ if env is None else env
    raw = env.get("CATCODE_HOME")
    return Path(raw).expanduser().resolve() if raw else Path.home() / ".cat-code"


def find_project_root(cwd: Path) -> Path:
    """The git root containing ``cwd``, else ``cwd`` itself."""
    cwd = cwd.resolve()
    for candidate in (cwd, *cwd.parents):
        if (candidate / ".git").exists():
            return candidate
    return cwd


def project_key(root: Path) -> str:
    """Readable and collision-free: ``<dirname>-<sha256(abs path)[:8]>``."""
    digest = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:8]
    name = "".join(c if c.isalnum() or c in "-_." else "-" for c in root.name) or "root"
    return f"{name}-{digest}"


def user_hash(user_id: str) -> str:
    """``sha256(user_id)[:16]``: the user scope folder name."""
    return hashlib.sha256(user_id.encode()).hexdigest()[:16]


def default_user_id() -> str:
    """The OS login name."""
    try:
        return getpass.getuser()
    except Exception:
        return "default"


@dataclass(frozen=True)
class Paths:
    """Every place on disk catcode reads or writes: five given, the rest derived from them once."""

    home: Path
    project_root: Path
    project_key: str
    memory_root: Path
    user_id: str
    logs: Path = field(init=False)
    """The log file."""
    input_history: Path = field(init=False)
    """Typed-line history of the REPL, per project."""
    user_memory: Path = field(init=False)
    """User scope: ``memory/users/<uid16>``."""
    project_memory: Path = field(init=False)
    """Project scope: ``memory/projects/<project-key>``."""
    memory_lock: Path = field(init=False)
    """The cross-process lock that serialises memory writes and commits."""
    history_file: Path = field(init=False)
    """The project's conversation log."""
    cursor_file: Path = field(init=False)
    """How far extraction has processed the conversation log."""
    facts_db: Path = field(init=False)
    """The derived full-text index."""

    def __post_init__(self) -> None:
        project = self.memory_root / "projects" / self.project_key
        derived = {
            "logs": self.home / "logs" / "catcode.log",
            "input_history": self.home / "input-history" / self.project_key,
            "user_memory": self.memory_root / "users" / user_hash(self.user_id),
            "project_memory": project,
            "memory_lock": self.memory_root / ".write.lock",
            "history_file": project / "history.jsonl",
            "cursor_file": project / ".dream_cursor",
            "facts_db": project / "facts.db",
        }
        for name, path in derived.items():
            object.__setattr__(self, name, path)  # frozen: set once, here


def _read_yaml(path: Path) -> dict[str, Any]:
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


def _merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in top.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def _set(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for part in path[:-1]:
        data = data.setdefault(part, {})
    data[path[-1]] = value


def _has(data: dict[str, Any], loc: tuple[Any, ...]) -> bool:
    for part in loc:
        if not isinstance(data, dict) or part not in data:
            return False
        data = data[part]
    return True


def load_settings(home: Path, project_root: Path, env: dict[str, str], overrides: dict[str, Any]) -> Settings:
    """Merge all layers and validate once; errors name the layer and key that caused them."""
    project_dir = project_root / ".cat-code"
    layers: list[tuple[str, dict[str, Any]]] = [(str(home / "settings.yaml"), _read_yaml(home / "settings.yaml"))]
    for name in ("settings.yaml", "settings.local.yaml"):
        path = project_dir / name
        data = _read_yaml(path)
        if _has(data, ("memory", "dir")):
            raise ConfigError(
                f"{path}: memory.dir may only be set in {home / 'settings.yaml'} (a project must not "
                "redirect where memories are written)"
            )
        layers.append((str(path), data))
    env_layer: dict[str, Any] = {}
    for var, path in ENV_VARS.items():
        if var in env:
            _set(env_layer, path, env[var])
    layers.append(("environment", env_layer))
    layers.append(("command line", overrides))
    merged: dict[str, Any] = {}
    for _, data in layers:
        merged = _merge(merged, data)
    try:
        return Settings.model_validate(merged)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        key = ".".join(str(p) for p in loc)
        source = next((name for name, data in reversed(layers) if _has(data, loc)), "settings")
        reason = "unknown setting" if err["type"] == "extra_forbidden" else err["msg"]
        raise ConfigError(f"{source}: {key}: {reason}") from None


def resolve_paths(settings: Settings, home: Path, project_root: Path) -> Paths:
    """Where everything lives for these settings."""
    memory_dir = settings.memory.dir
    memory_root = Path(memory_dir).expanduser() if memory_dir else home / "memory"
    return Paths(
        home=home,
        project_root=project_root,
        project_key=project_key(project_root),
        memory_root=memory_root,
        user_id=settings.memory.user_id or default_user_id(),
    )
