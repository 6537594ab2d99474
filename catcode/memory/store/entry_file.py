"""The on-disk format of one memory (``<name>.md``) and of the ``MEMORY.md`` index, exactly as the seed.

```
---
name: user-prefers-vim
description: 用户偏好 vim 编辑器
metadata:
  type: user
  createdAt: 2026-08-06
  updatedAt: 2026-08-06
---
用户偏好 vim 作为编辑器，配置在 ~/.vimrc。
```
Scalars are written plain when YAML would read them back unchanged, else as double-quoted scalars using
only the escapes YAML and JSON share (so any text round-trips). The content is everything after the
closing ``---`` line. Normalisation: writing adds one trailing newline and reading removes one, so the
content round-trips exactly, including trailing newlines and a leading ``---`` line.

Reading takes a fast path for the exact layout written here and falls back to a YAML parser for
hand-edited files. Anything unreadable raises ``EntryParseError`` carrying the reason."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

import yaml

from catcode.errors import CatcodeError
from catcode.memory.store.models import MemoryEntry, MemoryType
from catcode.text import flatten

INDEX_NAME = "MEMORY.md"
INDEX_TITLE = "# Memory Index"

# Characters a double-quoted scalar must escape: quotes, backslash, controls, YAML line breaks (NEL, LS,
# PS), the BOM and non-characters YAML refuses, and lone surrogates.
_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]')
_NAMED_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
# A plain scalar that YAML reads back as this very string: starts with a letter (or "_"), no escapes
# needed, no tab, no comment or mapping indicator inside, no trailing space, not a bool/null word.
_PLAIN = re.compile(r"[^\W\d][^\t\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]*")
_NOT_STRINGS = frozenset({"true", "false", "yes", "no", "on", "off", "null", "y", "n"})
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_CLOSING = re.compile(r"^---[ \t]*\r?$", re.M)
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class EntryParseError(CatcodeError):
    """A memory file could not be read; ``reason`` says why (the file is skipped, never rewritten)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def is_plain_safe(text: str) -> bool:
    """True when ``text`` can be written as an unquoted YAML scalar and read back unchanged."""
    return (
        _PLAIN.fullmatch(text) is not None
        and ": " not in text
        and " #" not in text
        and not text.endswith(":")
        and not text[-1].isspace()
        and text.lower() not in _NOT_STRINGS
    )


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    return _NAMED_ESCAPES.get(ch) or f"\\u{ord(ch):04x}"


def scalar(text: str) -> str:
    """``text`` as a YAML scalar: plain when safe, else double-quoted (also valid JSON)."""
    if text and is_plain_safe(text):
        return text
    return '"' + _NEEDS_ESCAPE.sub(_escape, text) + '"'


def render(entry: MemoryEntry) -> str:
    """The full text of ``entry``'s file."""
    return (
        f"---\nname: {scalar(entry.name)}\ndescription: {scalar(entry.description)}\nmetadata:\n"
        f"  type: {entry.type.value}\n  createdAt: {entry.created_at.isoformat()}\n"
        f"  updatedAt: {entry.updated_at.isoformat()}\n---\n{entry.content}\n"
    )


def parse(data: bytes) -> MemoryEntry:
    """Read a memory file; raises ``EntryParseError`` with the reason when it is not one."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EntryParseError(f"not UTF-8 (byte {exc.start})") from None
    text = text.removeprefix("\ufeff")
    first, newline, rest = text.partition("\n")
    if first.rstrip() != "---" or not newline:
        raise EntryParseError("broken front matter: the file does not start with a '---' line")
    closing = _CLOSING.search(rest)
    if closing is None:
        raise EntryParseError("broken front matter: no closing '---' line")
    fields = _fast_fields(rest[: closing.start()]) or _yaml_fields(rest[: closing.start()])
    body = rest[closing.end() + 1 :]
    return _entry(fields, body.removesuffix("\n"))


def _fast_fields(front: str) -> dict[str, Any] | None:
    """The exact layout ``render`` writes, read without a YAML parser (10,000 files load quickly)."""
    lines = front.split("\n")
    if len(lines) != 7 or lines[6] != "" or lines[2] != "metadata:":
        return None
    keys = ("name: ", "description: ", None, "  type: ", "  createdAt: ", "  updatedAt: ")
    values: list[str] = []
    for line, key in zip(lines, keys, strict=False):
        if key is None:
            continue
        if not line.startswith(key):
            return None
        raw = line[len(key) :]
        value = raw if _DATE.fullmatch(raw) else _fast_scalar(raw)
        if value is None:
            return None
        values.append(value)
    name, description, type_, created, updated = values
    meta = {"type": type_, "createdAt": created, "updatedAt": updated}
    return {"name": name, "description": description, "metadata": meta}


def _fast_scalar(raw: str) -> str | None:
    if raw.startswith('"'):
        if len(raw) < 2 or not raw.endswith('"'):
            return None
        try:
            value = json.loads(raw)
        except ValueError:
            return None
        return value if isinstance(value, str) else None
    return raw if raw and is_plain_safe(raw) else None


def _yaml_fields(front: str) -> dict[str, Any]:
    try:
        fields = yaml.load(front, Loader=_YAML_LOADER)  # a safe loader (CSafeLoader when libyaml is present)
    except yaml.YAMLError as exc:
        raise EntryParseError(f"broken front matter: {' '.join(str(exc).split())[:200]}") from None
    if not isinstance(fields, dict):
        raise EntryParseError("broken front matter: not a mapping of fields")
    return fields


def _entry(fields: dict[str, Any], content: str) -> MemoryEntry:
    meta = fields.get("metadata")
    if not isinstance(meta, dict):
        raise EntryParseError("missing field: metadata")
    values: dict[str, Any] = {}
    for key in ("name", "description"):
        if key not in fields or fields[key] is None:
            raise EntryParseError(f"missing field: {key}")
        if not isinstance(fields[key], str):
            raise EntryParseError(f"field {key} is not text")
        values[key] = fields[key]
    raw_type = meta.get("type")
    if raw_type is None:
        raise EntryParseError("missing field: metadata.type")
    try:
        values["type"] = MemoryType(str(raw_type).strip().lower())
    except ValueError:
        raise EntryParseError(f"unknown type {raw_type!r} (expected user|feedback|project|reference)") from None
    for key, field in (("createdAt", "created_at"), ("updatedAt", "updated_at")):
        values[field] = _date(meta.get(key), key)
    return MemoryEntry(content=content, **values)


def _date(value: Any, key: str) -> date:
    if value is None:
        raise EntryParseError(f"missing field: metadata.{key}")
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value).strip())
    except ValueError:
        raise EntryParseError(f"field metadata.{key} is not a date (YYYY-MM-DD): {value!r}") from None


def render_index(entries: Iterable[MemoryEntry]) -> str:
    """``MEMORY.md``: the title, a blank line, then ``- [name](name.md) — description`` sorted by name."""
    lines = [f"- [{e.name}]({e.name}.md) — {flatten(e.description)}" for e in sorted(entries, key=_by_name)]
    return "\n".join([INDEX_TITLE, "", *lines]) + "\n"


def _by_name(entry: MemoryEntry) -> str:
    return entry.name


def clean_text(text: str) -> str:
    """``text`` made encodable as UTF-8: surrogate pairs joined, lone surrogates become U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text
