"""What a project's settings may not do to the fence without the person's consent: turn it off (or to a weaker mode
than the person's own), turn the network on, add writable folders, give back a hidden path (``readable``), pass a
secret-looking variable (``env``). Tightening it (``read-only``, more ``hidden`` paths) needs nothing.
Used by ``project_trust`` on each project layer before the merge; what was refused is dropped from the layer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from catcode.settings.consent import ConsentItem

# Any: settings layers are YAML data, checked here before pydantic validates them.

STRENGTH = {"read-only": 0, "workspace-write": 1, "off": 2}
"""How much each mode lets a command do; a project may only stay at or below the person's own."""


_LISTS = {
    "writable": "writable folder",
    "readable": "hidden path given back:",
    "env": "secret-looking variable passed:",
}
"""The list settings whose every entry loosens the fence, and how the consent question names one."""


def _switch(value: Any) -> Any:
    # YAML reads a bare off/on as false/true (as the settings model does).
    return {False: "off", True: "on"}.get(value, value) if isinstance(value, bool) else value


def sandbox_items(data: dict[str, Any], where: str, user: Any) -> list[ConsentItem]:
    """The consent items one project layer's ``sandbox:`` asks for, against the person's own ``user`` section."""
    from catcode.settings.consent import ConsentItem

    sandbox = data.get("sandbox")
    if not isinstance(sandbox, dict):
        return []
    base = user if isinstance(user, dict) else {}
    items: list[ConsentItem] = []
    mode = _switch(sandbox.get("mode"))
    own = _switch(base.get("mode", "workspace-write"))
    if mode is not None and STRENGTH.get(str(mode), 3) > STRENGTH.get(str(own), 1):
        items.append(ConsentItem("settings", "sandbox.mode", f"sandbox mode {mode} ({where})", str(mode)))
    if _switch(sandbox.get("network")) == "on" and _switch(base.get("network")) != "on":
        items.append(ConsentItem("settings", "sandbox.network", f"sandbox network on ({where})", "on"))
    for key, what in _LISTS.items():
        values = sandbox.get(key)
        for value in values if isinstance(values, list) else []:
            if isinstance(value, str):
                summary = f"sandbox {what} {value} ({where})"
                items.append(ConsentItem("settings", f"sandbox.{key} {value}", summary, value))
    return items


def without_refused(data: dict[str, Any], refused: set[str]) -> dict[str, Any]:
    """``data`` without the sandbox settings the person refused."""
    sandbox = data.get("sandbox")
    if not isinstance(sandbox, dict):
        return data
    kept = dict(sandbox)
    for key in ("mode", "network"):
        if f"settings:sandbox.{key}" in refused:
            kept.pop(key, None)
    for key in _LISTS:
        if isinstance(kept.get(key), list):
            kept[key] = [v for v in kept[key] if f"settings:sandbox.{key} {v}" not in refused]
    return {**data, "sandbox": kept}
