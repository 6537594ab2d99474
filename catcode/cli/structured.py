"""``--json-schema``: the answer is a JSON value of the given shape, returned as the result's ``structured_output``
(Claude Code's meaning). The schema goes with the message; the reply's JSON (the whole text, or a fenced block in
it) is checked against the schema's types and required fields; one that does not fit leaves ``structured_output``
out and says so in the result's ``errors``."""

from __future__ import annotations

import json
import re
from typing import Any

# Any: a JSON schema and the value it describes.

FENCED = re.compile(r"```(?:json)?\s*\n(.*?)\n```", re.S)


def ask_for(message: str, schema: dict[str, Any]) -> str:
    """The message with the shape of the answer asked for."""
    return (
        f"{message}\n\nWhen you are done, answer with only a JSON value matching this JSON schema (no other text):\n"
        f"{json.dumps(schema, ensure_ascii=False)}"
    )


def parsed(text: str, schema: dict[str, Any]) -> Any:
    """The answer's JSON value when it fits ``schema``; None otherwise."""
    for candidate in (text.strip(), *FENCED.findall(text)):
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if fits(value, schema):
            return value
    return None


TYPES: dict[str, Any] = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def fits(value: Any, schema: dict[str, Any]) -> bool:
    """The common part of JSON Schema: ``type``, ``required``, ``properties``, ``items``, ``enum``."""
    kind = schema.get("type")
    if isinstance(kind, list):
        return any(fits(value, {**schema, "type": k}) for k in kind)
    if kind in ("integer", "number"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if kind == "integer" and not float(value).is_integer():
            return False
    elif isinstance(kind, str) and kind in TYPES and not isinstance(value, TYPES[kind]):
        return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    if isinstance(value, dict):
        if any(key not in value for key in schema.get("required", [])):
            return False
        properties = schema.get("properties", {})
        return all(fits(value[k], sub) for k, sub in properties.items() if k in value and isinstance(sub, dict))
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return all(fits(item, schema["items"]) for item in value)
    return True
