"""The settings of a session as the person allows them: every layer read and checked, and what the project's files
ask that needs consent (``project_trust``) asked for, or dropped with one line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from catcode.errors import ConfigError
from catcode.safety.project_trust import anchor_memory_dir, check_rules, mode_of, trusted_layers
from catcode.settings.config import ENV_VARS, Layer, Settings, has_key, set_key, validate_layers
from catcode.settings.consent import Asker
from catcode.settings.providers import USER_ONLY

# Any: settings layers are YAML data until pydantic validates them; consent keywords are passed through.


def check_project_file(path: Path, data: dict[str, Any], home: Path) -> None:
    """``ConfigError`` when a project's settings file sets what only the person's own settings may: where memories
    are written, the base prompt, the provider and its options."""
    for key, why in (("dir", "redirect where memories are written"), ("project_key", "pick its memory folder")):
        if has_key(data, ("memory", key)):
            raise ConfigError(
                f"{path}: memory.{key} may only be set in {home / 'settings.yaml'} (a project must not {why})"
            )
    if "system_prompt" in data:  # the base prompt is the person's to replace, not a cloned repository's
        raise ConfigError(
            f"{path}: system_prompt may only be set in {home / 'settings.yaml'} or with --system-prompt "
            "(a project adds instructions with AGENTS.md or append_system_prompt)"
        )
    for key in USER_ONLY:
        if key in data:
            raise ConfigError(
                f"{path}: {key} may only be set in {home / 'settings.yaml'} (a project must not choose where "
                "your requests and credentials go)"
            )


def settings_layers(
    home: Path,
    project_root: Path,
    env: dict[str, str],
    overrides: dict[str, Any],
    *,
    ask_consent: Asker | None = None,
    notify: Callable[[str], None] | None = None,
    managed: Path | None = None,
    notes: list[str] | None = None,
) -> list[Layer]:
    """Every layer, lowest first (``settings.sources``: catcode's files and Claude Code's, then the environment,
    the flags and Claude Code's managed policy), read and checked for keys a layer may not set (not yet validated).

    What the project's files ask that needs consent (``project_trust``) is asked through ``ask_consent`` (None:
    nobody is asked, only earlier answers count) and dropped when not given, with one line through ``notify``.
    What a Claude Code file holds that catcode does not use — keys, rules naming tools catcode does not have — is
    left out, one line per file added to ``notes`` (``catcode doctor`` shows them)."""
    from catcode.settings.sources import MANAGED, USER, settings_files

    notes = [] if notes is None else notes
    files = settings_files(home, project_root, env, managed=managed)
    user: list[Layer] = []
    project: list[Layer] = []
    top: list[Layer] = []
    for source in files:
        data, note = source.read(project_root)
        if source.claude:
            note = _keep_usable_rules(data, note, source.path)
        if note:
            notes.append(note)
        name = str(source.path)
        if source.from_project:
            check_project_file(source.path, data, home)
            project.append((name, data))
        else:
            if source.scope == USER and not source.claude:
                anchor_memory_dir(data, source.path)
            check_rules(name, data)
            (top if source.scope == MANAGED else user).append((name, data))
    base_mode = next((mode_of(data) for _, data in reversed(user) if has_key(data, ("permissions", "mode"))), "default")
    user_sandbox = next((data["sandbox"] for _, data in reversed(user) if "sandbox" in data), None)
    env_layer: dict[str, Any] = {}
    for var, keys in ENV_VARS.items():
        if var in env:
            set_key(env_layer, keys, env[var])
    for source_name, data in project:
        check_rules(source_name, data)
    project = trusted_layers(
        project,
        home=home,
        root=project_root,
        base_mode=base_mode,
        mode_fixed=has_key(env_layer, ("permissions", "mode")) or has_key(overrides, ("permissions", "mode")),
        ask=ask_consent,
        notify=notify or (lambda line: None),
        user_sandbox=user_sandbox,
    )
    return [*user, *project, ("environment", env_layer), ("command line", overrides), *top]


def _keep_usable_rules(data: dict[str, Any], note: str | None, path: Path) -> str | None:
    """A Claude Code file's rules that catcode can use; the others (``WebFetch(domain:x)``, a tool catcode does not
    have) are left out and named, never an error: the file was written for Claude Code."""
    from catcode.safety.permission_rules import Rule

    permissions = data.get("permissions")
    if not isinstance(permissions, dict):
        return note
    left_out: list[str] = []
    for key in ("allow", "deny", "ask"):
        usable = []
        for rule in permissions.get(key) or []:
            try:
                Rule.parse(rule).check_tool(rule)
            except ConfigError:
                left_out.append(rule)
                continue
            usable.append(rule)
        if key in permissions:
            permissions[key] = usable
    if not left_out:
        return note
    shown = f"permission rules for tools catcode does not have: {', '.join(left_out)}"
    return f"{note}; {shown}" if note else f"{path}: not used: {shown}"


def load_settings(
    home: Path, project_root: Path, env: dict[str, str], overrides: dict[str, Any], **consent: Any
) -> Settings:
    """Merge all layers and validate once; errors name the layer and key that caused them. ``consent`` takes
    ``settings_layers``' keywords (``ask_consent``, ``notify``). A model named by its family (``opus``, as Claude
    Code's settings and catcode's flags allow) is the newest of that family."""
    settings = validate_layers(settings_layers(home, project_root, env, overrides, **consent))
    if settings.model.strip().lower() in ("sonnet", "opus", "haiku"):
        from catcode.providers.pricing import model_alias

        settings.model = model_alias(settings.model)
    return settings
