"""Settings errors in plain words: a pydantic validation error becomes one short reason a person can act on
("must be at least 1", "expected true or false"), never pydantic's own text."""

from __future__ import annotations

from typing import Any

# Any: pydantic's validation errors and the YAML values they name.

PERMISSION_MODES = ("default", "accept-edits", "read-only", "bypass", "plan")


def unknown_mode(value: object) -> str:
    """The one line for a permission mode that does not exist."""
    return f"unknown permission mode {str(value)!r} (choose: {', '.join(PERMISSION_MODES)})"


def check_permission_mode(value: str) -> str:
    """``value`` when it names a permission mode; ``ValueError`` with ``unknown_mode`` otherwise."""
    if value not in PERMISSION_MODES:
        raise ValueError(unknown_mode(value))
    return value


def describe(error: Any) -> str:
    """One pydantic error (an item of ``ValidationError.errors()``) as a plain reason."""
    kind = error.get("type", "")
    ctx = error.get("ctx") or {}
    got = error.get("input")
    shown = _shown(got)
    if kind == "extra_forbidden":
        return "unknown setting"
    if kind == "value_error":
        return str(ctx.get("error") or error.get("msg", "invalid value"))
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return f"expected a whole number, got {shown}"
    if kind == "finite_number":
        return f"must be a finite number, got {shown}"
    if kind in ("float_parsing", "float_type"):
        return f"expected a number, got {shown}"
    if kind in ("bool_parsing", "bool_type"):
        return f"expected true or false, got {shown}"
    if kind in ("string_type",):
        return f"expected text, got {shown}"
    if kind in ("list_type",):
        return f"expected a list, got {shown}"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return f"expected a mapping of settings, got {shown}"
    limits = {
        "greater_than_equal": ("at least", "ge"),
        "greater_than": ("more than", "gt"),
        "less_than_equal": ("at most", "le"),
        "less_than": ("less than", "lt"),
    }
    if kind in limits:
        words, key = limits[kind]
        return f"must be {words} {ctx.get(key)}, got {shown}"
    if kind in ("string_too_short", "string_too_long", "too_short", "too_long"):
        return f"wrong length: {shown}"
    if kind == "literal_error":
        return f"choose one of {ctx.get('expected', '')}, got {shown}"
    if kind == "missing":
        return "missing"
    return f"invalid value {shown}"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"
