"""Tolerant parsing of the extractor's and the consolidator's replies: never raises, never silent.

Models wrap JSON in code fences or prose, leave trailing commas, get cut off at the token limit, write
``targetName`` or ``target_name``, shout ``"USER"``. The first balanced top-level object holding the
expected key is used; a reply cut off mid-list keeps its complete items. Each invalid candidate or
operation is dropped on its own with a logged reason; a near-miss name is repaired when that is safe."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from typing import Any

from catcode.log import get_logger
from catcode.memory.store.models import CandidateMemory, MemoryAction, MemoryOperation, MemoryType
from catcode.memory.store.names import looks_like_secret, name_problem, slugify

log = get_logger(__name__)

PREVIEW_CHARS = 500
MAX_OBJECTS_TRIED = 100  # a reply of a million "{}" must not cost a million parses
MAX_ITEMS = 200  # far more than fits in a reply's token budget; a runaway list is cut, not logged item by item
_INNER = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}]', re.S)  # strings are skipped whole (C speed)
_TRAILING_COMMA = re.compile(r'("[^"\\]*(?:\\.[^"\\]*)*")|,(\s*[}\]])', re.S)
_COMMA_BEFORE_CLOSE = re.compile(r",\s*[}\]]")
_FENCE = re.compile(r"^\s*```[\w-]*[ \t]*\n?(.*?)\n?```\s*$", re.S)
_DECODER = json.JSONDecoder(strict=False)  # models put raw newlines inside strings
_TYPES = {t.value: t for t in MemoryType}
_ACTIONS = {a.value: a for a in MemoryAction}
_NULLS = frozenset({"", "null", "none"})


def parse_candidates(text: str) -> list[CandidateMemory]:
    """The valid candidates of an extractor reply (``{"candidates": [...]}``)."""
    try:
        items = _capped(_items(text, "candidates"), "candidates")
        return [c for i, raw in enumerate(items) if (c := candidate_from(raw, index=i)) is not None]
    except Exception as exc:  # the last line of defence: a reply must never break the pipeline
        log.warning("memory_reply_unparseable", key="candidates", error=repr(exc), preview=_preview(text))
        return []


def parse_operations(text: str) -> list[MemoryOperation]:
    """The valid operations of a consolidator reply (``{"operations": [...]}``)."""
    try:
        items = _capped(_items(text, "operations"), "operations")
        return [op for i, raw in enumerate(items) if (op := _operation(raw, i)) is not None]
    except Exception as exc:
        log.warning("memory_reply_unparseable", key="operations", error=repr(exc), preview=_preview(text))
        return []


def candidate_from(raw: Any, *, index: int, where: str = "candidate") -> CandidateMemory | None:
    """A ``CandidateMemory`` from one JSON item, or None (logged with the reason)."""
    if not isinstance(raw, dict):
        return _drop(where, index, f"not an object but {type(raw).__name__}")
    values: dict[str, str] = {}
    for field in ("type", "name", "description", "content"):
        value = raw.get(field)
        if value is None:
            return _drop(where, index, f"missing field {field}", raw.get("name"))
        if not isinstance(value, str):
            return _drop(where, index, f"field {field} is not text", raw.get("name"))
        if not value.strip():
            return _drop(where, index, f"field {field} is empty", raw.get("name"))
        values[field] = value.strip()
    memory_type = _TYPES.get(values["type"].lower())
    if memory_type is None:
        return _drop(where, index, f"unknown type {values['type']!r}", values["name"])
    name = _fixed_name(values["name"], where, index)
    if name is None:
        return None
    return CandidateMemory(type=memory_type, name=name, description=values["description"], content=values["content"])


def _operation(raw: Any, index: int) -> MemoryOperation | None:
    if not isinstance(raw, dict):
        return _drop("operation", index, f"not an object but {type(raw).__name__}")
    action_raw = raw.get("action")
    action = _ACTIONS.get(action_raw.strip().lower()) if isinstance(action_raw, str) else None
    if action is None:
        return _drop("operation", index, f"unknown action {action_raw!r}")
    target = raw.get("targetName", raw.get("target_name"))
    if target is not None and not isinstance(target, str):
        return _drop("operation", index, "targetName is not text")
    if target is not None and target.strip().lower() in _NULLS:
        target = None
    if target is not None:
        target = _fixed_name(target.strip(), "operation", index, field="targetName")
        if target is None and action is MemoryAction.UPDATE:
            return None
    entry_raw = raw.get("entry")
    if entry_raw is None and "entry" not in raw and {"type", "name", "content"} <= raw.keys():
        entry_raw = raw  # the candidate's fields written directly into the operation
    entry = None if entry_raw is None else candidate_from(entry_raw, index=index, where="operation entry")
    if entry_raw is not None and entry is None and action is not MemoryAction.SKIP:
        return _drop("operation", index, f"{action.value} with an invalid entry", target)
    return MemoryOperation(action=action, target_name=target, entry=entry)


def _fixed_name(raw: str, where: str, index: int, *, field: str = "name") -> str | None:
    """``raw`` if valid, its slug if that is a safe repair, else None (logged)."""
    raw = raw.strip()
    if looks_like_secret(raw):
        return _drop(where, index, f"{field} looks like a secret")  # the name itself is not logged
    problem = name_problem(raw)
    if problem is None:
        return raw
    slug = slugify(raw)
    if slug is None:
        return _drop(where, index, f"invalid {field} {raw[:100]!r}: {problem}", raw)
    log.info("memory_name_repaired", where=where, index=index, original=raw[:100], name=slug)
    return slug


def _drop(where: str, index: int, reason: str, name: Any = None) -> None:
    log.warning("memory_item_dropped", where=where, index=index, reason=reason, name=str(name)[:100] if name else None)


def _items(text: str, key: str) -> list[Any]:
    """The list under ``key`` in the first JSON object of ``text`` that holds it; [] (logged) otherwise."""
    if not isinstance(text, str) or not text.strip():
        log.warning("memory_reply_unparseable", key=key, reason="empty reply", preview=_preview(text))
        return []
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text
    whole = _loads(body.strip())  # the common case: nothing but (fenced) JSON
    if isinstance(whole, dict) and _has(whole, key):
        return _as_list(_get(whole, key), key)
    first_object = whole if isinstance(whole, dict) else None
    for start, end in itertools.islice(_balanced_objects(body), MAX_OBJECTS_TRIED):
        obj = _loads(body[start:end])
        if isinstance(obj, dict):
            if _has(obj, key):
                return _as_list(_get(obj, key), key)
            first_object = first_object if first_object is not None else obj
    salvaged = _salvage(body, key)
    if salvaged is not None:
        log.warning("memory_reply_incomplete", key=key, kept=len(salvaged), preview=_preview(text))
        return salvaged
    if isinstance(whole, list):
        return whole  # a bare list of items
    if first_object is not None:
        log.warning("memory_reply_unparseable", key=key, reason=f"no {key!r} field", preview=_preview(text))
    else:
        log.warning("memory_reply_unparseable", key=key, reason="no JSON object found", preview=_preview(text))
    return []


def _capped(items: list[Any], key: str) -> list[Any]:
    if len(items) > MAX_ITEMS:
        log.warning("memory_reply_too_long", key=key, items=len(items), kept=MAX_ITEMS)
        return items[:MAX_ITEMS]
    return items


def _balanced_objects(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each balanced top-level ``{...}``; quotes outside objects (prose) are ignored."""
    pos = 0
    while (start := text.find("{", pos)) >= 0:
        if text.find("}", start) < 0:
            return  # cut off: nothing can close
        depth = 0
        for match in _INNER.finditer(text, start):
            token = match.group()
            if token == "{":
                depth += 1
            elif token == "}":
                depth -= 1
                if depth == 0:
                    pos = match.end()
                    yield start, pos
                    break
        else:
            return  # unbalanced to the end: cut off


def _loads(text: str) -> Any:
    try:
        return _DECODER.decode(text)
    except (ValueError, RecursionError):
        pass
    if not _COMMA_BEFORE_CLOSE.search(text):
        return None
    try:
        return _DECODER.decode(_TRAILING_COMMA.sub(lambda m: m.group(1) or m.group(2), text))
    except (ValueError, RecursionError):
        return None


def _salvage(text: str, key: str) -> list[Any] | None:
    """The complete items of a ``"key": [`` list that was cut off or broken later on."""
    match = re.search(rf'"{re.escape(key)}"\s*:\s*\[', text, re.I)
    if match is None:
        return None
    items, pos = [], match.end()
    while len(items) <= MAX_ITEMS:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            return items
        try:
            item, pos = _DECODER.raw_decode(text, pos)
        except ValueError:
            return items
        items.append(item)
    return items


def _has(obj: dict[str, Any], key: str) -> bool:
    return key in obj or any(isinstance(k, str) and k.lower() == key for k in obj)


def _get(obj: dict[str, Any], key: str) -> Any:
    if key in obj:
        return obj[key]
    return next(v for k, v in obj.items() if isinstance(k, str) and k.lower() == key)


def _as_list(value: Any, key: str) -> list[Any]:
    if isinstance(value, list):
        return value
    if value is None:
        return []
    if isinstance(value, dict):
        return [value]  # one item instead of a list of one
    log.warning("memory_reply_unparseable", key=key, reason=f"{key} is {type(value).__name__}, not a list")
    return []


def _preview(text: Any) -> str:
    return text[:PREVIEW_CHARS] if isinstance(text, str) else repr(text)[:PREVIEW_CHARS]
