"""Writing settings files: ``catcode config set`` and the "save this always-allow" answer of the permission
prompt. Every change is validated against all the other layers BEFORE the file is written (a bad value changes
nothing), then written atomically with mode 0600.

The file is rewritten from its parsed YAML, so comments in it are not kept; the files catcode writes to are the
user's own settings and the project's personal ``settings.local.yaml``, or the shared project file only when
asked for with ``--project``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from catcode.errors import ConfigError
from catcode.fsutil import atomic_write_text, ensure_private_dir
from catcode.safety.trusted_settings import check_project_file, settings_layers
from catcode.settings.config import Layer, Settings, read_settings_file, validate_layers
from catcode.settings.consent import ConsentItem, ConsentStore

# Any: settings files are YAML data.

LOCAL_SETTINGS = Path(".cat-code") / "settings.local.yaml"


# Words YAML 1.1 reads as booleans although people mean them as words (``memory.sync off``): kept as text, which
# the settings' own checks still read as a boolean wherever one is expected.
_WORDS_NOT_BOOLEANS = {"on", "off", "yes", "no"}


def parse_value(raw: str) -> Any:
    """A command-line value read as YAML (``8192`` → int, ``true`` → bool, ``[a, b]`` → list, else text);
    ``on``/``off``/``yes``/``no`` stay text."""
    if raw.strip().lower() in _WORDS_NOT_BOOLEANS:
        return raw.strip()
    try:
        return yaml.safe_load(raw) if raw.strip() else raw
    except yaml.YAMLError:
        return raw


def with_value(data: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    """A copy of ``data`` with the dotted ``key`` set to ``value``."""
    out = _copy(data)
    node = out
    parts = key.split(".")
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = node[part] = {}
        node = child
    node[parts[-1]] = value
    return out


def _copy(data: dict[str, Any]) -> dict[str, Any]:
    return {k: _copy(v) if isinstance(v, dict) else (list(v) if isinstance(v, list) else v) for k, v in data.items()}


def checked_write(
    target: Path, new_data: dict[str, Any], *, home: Path, project_root: Path, env: dict[str, str]
) -> Settings:
    """Validate the settings as they would be with ``target`` holding ``new_data``, then write it (0600)."""
    if not isinstance(new_data, dict):
        raise ConfigError(f"{target}: settings must be a mapping")
    if target.resolve() != (home / "settings.yaml").resolve():
        check_project_file(target, new_data, home)
    layers = settings_layers(home, project_root, env, {})
    replaced: list[Layer] = [(name, new_data if Path(name) == target else data) for name, data in layers]
    if not any(Path(name) == target for name, _ in layers):
        raise ConfigError(f"{target} is not a settings file of this project")
    settings = validate_layers(replaced)
    ensure_private_dir(target.parent)
    atomic_write_text(target, yaml.safe_dump(new_data, sort_keys=False, allow_unicode=True))
    return settings


def rule_consent(rule: str) -> ConsentItem:
    """The consent item for a project allow rule (the shape the project-settings consent check asks about)."""
    return ConsentItem(
        kind="settings",
        key=f"permissions.allow {rule}",
        summary=f"allow rule {rule} ({LOCAL_SETTINGS})",
        content=rule,
    )


def save_allow_rules(rules: list[str], *, home: Path, project_root: Path, env: dict[str, str]) -> str:
    """Add ``rules`` to ``permissions.allow`` of the project's ``settings.local.yaml`` and record the person's
    consent to them (they chose them, so they are not asked about again); one line saying what was done."""
    target = project_root / LOCAL_SETTINGS
    data = read_settings_file(target)
    raw_permissions = data.get("permissions")
    permissions = raw_permissions if isinstance(raw_permissions, dict) else {}
    allow = list(permissions.get("allow") or [])
    added = [rule for rule in rules if rule not in allow]
    if added:
        checked_write(
            target, with_value(data, "permissions.allow", allow + added), home=home, project_root=project_root,
            env=env,
        )  # fmt: skip
    ConsentStore(home).record(project_root, [rule_consent(rule) for rule in rules], True)
    from catcode.settings.git_ignore import keep_out_of_git

    ignored = keep_out_of_git(project_root, LOCAL_SETTINGS.as_posix())
    return f"Saved {', '.join(rules)} to {LOCAL_SETTINGS}" + (f" ({ignored})" if ignored else "")
