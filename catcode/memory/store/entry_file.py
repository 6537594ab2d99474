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
Read and written through ``catcode.front_matter`` (pyyaml): scalars plain where YAML allows, else double-quoted;
dates as ``YYYY-MM-DD``; non-ASCII text as it is. The content is everything after the closing ``---`` line.
Normalisation: writing adds one trailing newline and reading removes one, so the content round-trips exactly,
including trailing newlines and a leading ``---`` line. Anything unreadable raises ``EntryParseError`` carrying the
reason."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import date, datetime
from typing import Any

from catcode import front_matter
from catcode.errors import CatcodeError
from catcode.memory.store.file_keys import INDEX_NAME as INDEX_NAME  # the index is named where files are listed
from catcode.memory.store.models import MemoryEntry, MemoryType
from catcode.text import flatten

# Any: a memory file's front matter is YAML data, checked field by field.

INDEX_TITLE = "# Memory Index"


class EntryParseError(CatcodeError):
    """A memory file could not be read; ``reason`` says why (the file is skipped, never rewritten)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def render(entry: MemoryEntry) -> str:
    """The full text of ``entry``'s file."""
    metadata = {"type": entry.type.value, "createdAt": entry.created_at, "updatedAt": entry.updated_at}
    return front_matter.write(
        {"name": entry.name, "description": entry.description, "metadata": metadata}, entry.content + "\n"
    )


def parse(data: bytes) -> MemoryEntry:
    """Read a memory file; raises ``EntryParseError`` with the reason when it is not one."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EntryParseError(f"not UTF-8 (byte {exc.start})") from None
    missing = "broken front matter: the file does not start with a '---' line"
    fields, body = front_matter.read(text, EntryParseError, missing=missing)
    return _entry(fields, body.removesuffix("\n"))


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
    return index_text(sorted((e.name, e.description) for e in entries))


def index_text(items: Iterable[tuple[str, str]]) -> str:
    """``MEMORY.md`` of ``(name, description)`` pairs already sorted by name (no memory is held whole)."""
    return "".join(index_lines(items))


def index_lines(items: Iterable[tuple[str, str]]) -> Iterator[str]:
    """``index_text``, a line at a time, each with its newline (as a file reads line by line): the index of 100,000
    memories is written and compared without being held."""
    yield f"{INDEX_TITLE}\n"
    yield "\n"
    for name, description in items:
        yield f"- [{name}]({name}.md) — {flatten(description)}\n"


def clean_text(text: str) -> str:
    """``text`` made encodable as UTF-8: surrogate pairs joined, lone surrogates become U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text
