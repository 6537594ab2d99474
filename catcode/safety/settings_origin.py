"""Where each setting's value comes from: every effective value with the settings file (or the environment) that set
it, and for a list that adds up across files, each file that added to it — what ``catcode config`` and ``/config``
show. What a project asks that needs consent is applied as for a session, with nobody asked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from catcode.settings.config import Settings

# Any: settings layers are YAML-shaped data.


def label(name: str, home: Path, root: Path) -> str:
    """A layer as people read it: ``user (~/.cat-code/settings.yaml)``, ``project (.claude/settings.json)``…"""
    from catcode.settings.sources import settings_files

    for source in settings_files(home, root):
        if name == str(source.path):
            return source.label(root)
    return name


def _flatten(data: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict):
            rows += _flatten(value, dotted + ".")
        else:
            rows.append((dotted, value))
    return rows


def _lookup(data: dict[str, Any], dotted: str) -> bool:
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def effective_rows(
    home: Path, root: Path, env: dict[str, str], notes: list[str] | None = None
) -> tuple[Settings, list[tuple[str, str, str]]]:
    """The settings, and ``(key, value, layer)`` for every one of them, in the order of the settings model; a list
    that adds up across layers names every layer that added to it. What Claude Code's files hold that is not used
    goes to ``notes``."""
    from catcode.safety.trusted_settings import settings_layers
    from catcode.settings.config import ACCUMULATED, ENV_VARS, validate_layers

    layers = settings_layers(home, root, env, {}, notes=notes)
    settings = validate_layers(layers)
    by_path = {".".join(path): var for var, path in ENV_VARS.items() if var in env}
    added_up = {".".join(path) for path in ACCUMULATED}
    rows = []
    for key, value in _flatten(settings.model_dump(mode="json")):
        sources = []
        for name, data in reversed(layers):
            if _lookup(data, key):
                sources.append(
                    f"environment ({by_path.get(key, '?')})" if name == "environment" else label(name, home, root)
                )
                if key not in added_up:
                    break
        rows.append((key, json.dumps(value, ensure_ascii=False), ", ".join(reversed(sources)) or "default"))
    return settings, rows
