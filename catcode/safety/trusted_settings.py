"""The settings of a session as the person allows them: every layer read and checked, and what the project's files
ask that needs consent (``project_trust``) asked for, or dropped with one line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from catcode.errors import ConfigError
from catcode.safety.project_trust import anchor_memory_dir, check_rules, mode_of, trusted_layers
from catcode.settings.config import ENV_VARS, Layer, Settings, has_key, read_settings_file, set_key, validate_layers
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
) -> list[Layer]:
    """Every layer, lowest first, read and checked for keys a layer may not set (not yet validated).

    What the project's files ask that needs consent (``project_trust``) is asked through ``ask_consent`` (None:
    nobody is asked, only earlier answers count) and dropped when not given, with one line through ``notify``."""
    project_dir = project_root / ".cat-code"
    user_file = home / "settings.yaml"
    user = read_settings_file(user_file)
    anchor_memory_dir(user, user_file)
    project: list[Layer] = []
    for name in ("settings.yaml", "settings.local.yaml"):
        path = project_dir / name
        data = read_settings_file(path)
        check_project_file(path, data, home)
        project.append((str(path), data))
    env_layer: dict[str, Any] = {}
    for var, keys in ENV_VARS.items():
        if var in env:
            set_key(env_layer, keys, env[var])
    for source, data in [(str(user_file), user), *project]:
        check_rules(source, data)
    project = trusted_layers(
        project,
        home=home,
        root=project_root,
        base_mode=mode_of(user),
        mode_fixed=has_key(env_layer, ("permissions", "mode")) or has_key(overrides, ("permissions", "mode")),
        ask=ask_consent,
        notify=notify or (lambda line: None),
        user_sandbox=user.get("sandbox"),
    )
    return [(str(user_file), user), *project, ("environment", env_layer), ("command line", overrides)]


def load_settings(
    home: Path, project_root: Path, env: dict[str, str], overrides: dict[str, Any], **consent: Any
) -> Settings:
    """Merge all layers and validate once; errors name the layer and key that caused them. ``consent`` takes
    ``settings_layers``' keywords (``ask_consent``, ``notify``)."""
    return validate_layers(settings_layers(home, project_root, env, overrides, **consent))
