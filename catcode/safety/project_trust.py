"""What a project may bring without the person's consent — its settings and its skills — and leaving out what
they did not consent to.

A project's ``.cat-code/settings.yaml`` and ``settings.local.yaml`` arrive with the repository (a clone can ship
``settings.local.yaml`` too), so neither may weaken the permission prompts on its own. These need the person's
one-time consent for the project (``catcode.settings.consent``: remembered in ``$CATCODE_HOME/consent.yaml``):

- ``permissions.mode`` ``bypass`` or ``accept-edits`` when it is weaker than the user's own mode and no flag or
  environment variable sets the mode. accept-edits is included: it lets the model change any project file without
  asking, ``.git/hooks`` and ``.cat-code/`` included, which is one step from running commands.
- each ``permissions.allow`` rule, except rules for read-only tools (they never ask anyway) and ``write_file``/
  ``edit_file`` rules confined to the project's own files: a relative pattern with no ``..`` that cannot match a
  path in ``.git`` or ``.cat-code`` — decided by what the pattern can match (``reaches_protected``), not by its
  first literal part: ``Write(.git*)``, ``write_file(.g?t/**)``, ``Edit(.gi[t]/**)`` and any pattern that matches
  at any depth (``Edit(config)`` matches ``.git/config``) need consent; ``Edit(src/**)`` and ``Edit(/README.md)`` do
  not.
- each ``permissions.additional_dirs`` and ``permissions.additional_directories`` entry (file tools could read and
  write there).
- a ``sandbox`` that is weaker than the person's own: mode off (or workspace-write over their read-only), the
  network on, each ``writable`` folder (``catcode.sandbox.loosening``).

Project skills (``.cat-code/skills/<name>/SKILL.md``) need consent too, each one: a skill's instructions steer
the model (``extensions.skills.consent``). Deny rules, ``read-only`` and every other setting need nothing: they cannot
take the person's protection away. Items without consent are dropped from the project's layers before the layers
are merged (one line through ``notify`` says so); without an asker (print mode, piped input) nobody is asked.
The other checks made on each layer before the merge live here too: permission rules parsed (an invalid one
names its file and key) and a relative ``memory.dir`` anchored to its settings file."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from catcode.errors import ConfigError

if TYPE_CHECKING:
    from catcode.settings.consent import Asker, ConsentItem

# Any: settings layers are YAML data, checked here before pydantic validates them.

MODE_STRENGTH = {"read-only": 0, "plan": 0, "default": 1, "accept-edits": 2, "bypass": 3}
"""How much each mode lets through without asking; a project may only stay at or below the user's own."""
PROTECTED = (".git", ".cat-code", ".claude")
"""The project's folders a project's own allow rule may never reach without consent: git's (its config and hooks
run programs), catcode's and Claude Code's (the project's settings, hooks, commands, skills and agents)."""
PROTECTED_SAMPLES = (
    ".git", ".git/config", ".git/HEAD", ".git/hooks/pre-commit", ".git/hooks/post-checkout", ".git/info/attributes",
    ".git/modules/lib/config", ".cat-code", ".cat-code/settings.yaml", ".cat-code/settings.local.yaml",
    ".cat-code/skills/deploy/SKILL.md", ".cat-code/agents/reviewer.md", ".claude", ".claude/settings.json",
    ".claude/settings.local.json", ".claude/commands/fix.md", ".claude/hooks/check.sh",
)  # fmt: skip
"""Representative paths inside ``PROTECTED``: a rule that matches any of them reaches a protected folder."""

Layer = tuple[str, dict[str, Any]]


def check_rules(source: str, data: dict[str, Any]) -> None:
    """Parse every permission rule of one layer now, so that a bad one names its file and key."""
    permissions = data.get("permissions")
    if not isinstance(permissions, dict):
        return
    for key in ("allow", "deny", "ask"):
        rules = permissions.get(key)
        if not isinstance(rules, list):
            continue
        from catcode.safety.permission_rules import Rule

        for rule in rules:
            if isinstance(rule, str):
                try:
                    Rule.parse(rule).check_tool(rule)
                except ConfigError as exc:
                    raise ConfigError(f"{source}: permissions.{key}: {exc}") from None


def anchor_memory_dir(data: dict[str, Any], settings_file: Path) -> None:
    """A relative ``memory.dir`` is relative to the folder of the settings file that sets it, not to wherever
    catcode happens to be started."""
    memory = data.get("memory")
    raw = memory.get("dir") if isinstance(memory, dict) else None
    if isinstance(memory, dict) and isinstance(raw, str) and raw.strip() and not Path(raw).expanduser().is_absolute():
        memory["dir"] = str(settings_file.parent / raw)


def mode_of(data: dict[str, Any]) -> str:
    """The permission mode a layer sets, or ``default``."""
    permissions = data.get("permissions")
    mode = permissions.get("mode") if isinstance(permissions, dict) else None
    return mode if isinstance(mode, str) else "default"


def rule_needs_consent(rule: str) -> bool:
    """Whether a project's allow rule could let something run, or write outside the project's own files, without
    asking."""
    from catcode.safety.permission_rules import Rule
    from catcode.tools.facts import PROJECT_FILE_TOOLS, READ_ONLY_TOOLS

    parsed = Rule.parse(rule)
    if parsed.tool in READ_ONLY_TOOLS:
        return False
    if parsed.tool not in PROJECT_FILE_TOOLS or parsed.pattern is None or parsed.whole_tool():
        return True
    return reaches_protected(parsed.pattern)


def reaches_protected(pattern: str) -> bool:
    """Could a file pattern (catcode's spelling, ``path_rules``) match a path outside the project or inside one of
    its ``PROTECTED`` folders? Yes for an absolute, home-relative or ``..`` pattern; for one that matches at any depth
    (``config``, ``*.py``, ``**/x``: inside ``.git`` too); for a first folder that is, or whose wildcards could name,
    a protected one in any case (``.git/**``, ``.g?t/**``, ``.gi[t]/**``, ``.cat-cod?/**``, ``*/config``); and, as a
    second reading of the same question, for a pattern that matches one of the ``PROTECTED_SAMPLES``."""
    from catcode.safety.path_rules import Target, floats, matches

    text = pattern.strip()
    if not text or text[0] in "/~" or "\\" in text or ":" in text[:3]:
        return True  # absolute, home-relative, escaped (gitignore's backslash), or a drive letter
    parts = PurePosixPath(text.removeprefix("./")).parts
    if not parts or ".." in parts:
        return True
    if floats(text):
        return True  # at any depth: inside .git too (.git/config, .git/modules/<name>/…)
    first = parts[0].lower()
    if any(fnmatch.fnmatchcase(name, first) for name in PROTECTED):
        return True
    return any(matches(text, Target("/" + sample, sample)) for sample in PROTECTED_SAMPLES)


def consent_items(
    project_layers: list[Layer], base_mode: str, mode_fixed: bool, root: Path, user_sandbox: Any = None
) -> list[ConsentItem]:
    """The items the project layers ask for, in file order, each once (the local file's mode wins)."""
    from catcode.sandbox.loosening import sandbox_items
    from catcode.settings.consent import ConsentItem

    items: dict[str, ConsentItem] = {}
    mode_item: ConsentItem | None = None
    for source, data in project_layers:
        for item in sandbox_items(data, shown_path(source, root), user_sandbox):
            items.setdefault(item.id, item)
        permissions = data.get("permissions")
        if not isinstance(permissions, dict):
            continue
        where = shown_path(source, root)
        mode = permissions.get("mode")
        if isinstance(mode, str) and not mode_fixed:
            weaker = MODE_STRENGTH.get(mode, -1) > MODE_STRENGTH.get(base_mode, 1)
            summary = f"permission mode {mode} ({where})"
            mode_item = ConsentItem("settings", "permissions.mode", summary, mode) if weaker else None
        for rule in _strings(permissions.get("allow")):
            if rule_needs_consent(rule):
                item = ConsentItem("settings", f"permissions.allow {rule}", f"allow rule {rule} ({where})", rule)
                items.setdefault(item.id, item)
        for field in ("additional_dirs", "additional_directories"):
            for folder in _strings(permissions.get(field)):
                key = f"permissions.{field} {folder}"
                item = ConsentItem("settings", key, f"additional directory {folder} ({where})", folder)
                items.setdefault(item.id, item)
    for source, data in project_layers:
        for item in _runs_or_changes(data, shown_path(source, root)):
            items[item.id] = item  # the higher layer's value is the one that would be used
    return ([mode_item] if mode_item else []) + list(items.values())


def _runs_or_changes(data: dict[str, Any], where: str) -> list[ConsentItem]:
    """A project layer's environment variables (each could change what every command runs: ``PATH``,
    ``LD_PRELOAD``, ``ANTHROPIC_BASE_URL``...) and its status-line command (it runs at every prompt)."""
    from catcode.settings.consent import ConsentItem

    found = []
    env = data.get("env")
    for name, value in env.items() if isinstance(env, dict) else ():
        found.append(ConsentItem("settings", f"env {name}", f"environment variable {name}={value} ({where})",
                                 f"{name}={value}"))  # fmt: skip
    line = data.get("status_line")
    command = line.get("command") if isinstance(line, dict) else None
    if isinstance(command, str):
        found.append(ConsentItem("settings", "status_line", f"status line command `{command}` ({where})", command))
    return found


def trusted_layers(
    project_layers: list[Layer],
    *,
    home: Path,
    root: Path,
    base_mode: str,
    mode_fixed: bool,
    ask: Asker | None,
    notify: Callable[[str], None],
    user_sandbox: Any = None,
) -> list[Layer]:
    """``project_layers`` without what needs consent and was not given (asking ``ask`` about new items);
    ``user_sandbox`` is the person's own ``sandbox:`` section, what a project's may not loosen."""
    asks = _asks_anything(project_layers)
    items = consent_items(project_layers, base_mode, mode_fixed, root, user_sandbox) if asks else []
    if not items:
        return project_layers
    from catcode.settings.consent import ConsentStore, gate

    allowed = {item.id for item in gate(ConsentStore(home), root, items, ask, notify)}
    refused = {item.id for item in items} - allowed
    return [(source, _without(data, refused, base_mode)) for source, data in project_layers]


def _asks_anything(project_layers: list[Layer]) -> bool:
    keys = ("permissions", "sandbox", "env", "status_line")
    return any(isinstance(data.get(key), dict) for _, data in project_layers for key in keys)


def _without(data: dict[str, Any], refused: set[str], base_mode: str) -> dict[str, Any]:
    from catcode.sandbox.loosening import without_refused

    data = without_refused(data, refused)
    if isinstance(data.get("env"), dict):
        data = {**data, "env": {k: v for k, v in data["env"].items() if f"settings:env {k}" not in refused}}
    if "settings:status_line" in refused and "status_line" in data:
        data = {k: v for k, v in data.items() if k != "status_line"}
    permissions = data.get("permissions")
    if not isinstance(permissions, dict):
        return data
    kept = dict(permissions)
    mode = kept.get("mode")
    weaker = isinstance(mode, str) and MODE_STRENGTH.get(mode, -1) > MODE_STRENGTH.get(base_mode, 1)
    if weaker and "settings:permissions.mode" in refused:
        del kept["mode"]
    for key in ("allow", "additional_dirs", "additional_directories"):
        if isinstance(kept.get(key), list):
            kept[key] = [v for v in kept[key] if f"settings:permissions.{key} {v}" not in refused]
    return {**data, "permissions": kept}


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def shown_path(source: str, root: Path) -> str:
    """``source`` relative to the project root when it is inside it (how a question names a project file)."""
    try:
        return Path(source).relative_to(root).as_posix()
    except ValueError:
        return source


MCP_JSON = ".mcp.json"
"""A project's MCP servers in Claude Code's format (``catcode.extensions.mcp.sources`` reads it; a test keeps the
names equal)."""
ASKING_FOLDERS = ("skills", "agents")
"""Folders of ``.cat-code/`` whose contents may need consent: project skills and agent definitions."""
CLAUDE_ASKING_FOLDERS = ("skills", "agents", "commands")
"""Folders of ``.claude/`` whose contents may need consent: skills, agents, and commands that run something."""
ASKING_KEYS = ("hooks", "mcp_servers")
"""Keys of a project settings file that run commands, which need consent."""


def may_ask(project_root: Path) -> bool:
    """Whether building a session for this project could ask the person something: an ``.mcp.json``, skills or agent
    definitions under ``.cat-code/`` or ``.claude/`` (commands too), or hooks or MCP servers in its settings files
    (what those files ask about the permission prompts is asked while the settings are loaded, before). The
    interactive session is then built before the prompt is drawn, so that every question is answered before what it
    governs is used; otherwise it is built behind the prompt, where nobody can be asked."""
    folder, claude = project_root / ".cat-code", project_root / ".claude"
    if (project_root / MCP_JSON).exists() or any((folder / name).exists() for name in ASKING_FOLDERS):
        return True
    if any((claude / name).exists() for name in CLAUDE_ASKING_FOLDERS):
        return True
    files = [folder / "settings.yaml", folder / "settings.local.yaml", claude / "settings.json"]
    return any(_runs_commands(path) for path in [*files, claude / "settings.local.json"])


def _runs_commands(settings_file: Path) -> bool:
    """Whether a project settings file sets hooks or MCP servers; one that cannot be read counts as yes."""
    try:
        text = settings_file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    except (OSError, UnicodeDecodeError):
        return True
    if not any(key in text for key in ASKING_KEYS):
        return False
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return True
    return not isinstance(data, dict) or any(data.get(key) for key in ASKING_KEYS)
