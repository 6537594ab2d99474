"""Tolerant parsing of the extractor's and the consolidator's replies: never raises, never silent.

A reply is read strictly first: the JSON value at its first ``{`` or ``[``, so code fences and prose around it cost
nothing. A reply that is not well-formed there — cut off at the token limit, single-quoted, with comments,
trailing commas, Python's ``True``/``None``, several objects — is mended by ``json-repair``, after being cut back to
its last ``}``: an item cut off mid-way is then dropped, never completed into a memory the model did not write.
``tests/memory/pipeline/test_reply_parsers.py`` holds the comparison with the hand-written parser this replaced.

Models also write ``targetName`` or ``target_name``, shout ``"USER"``, or put the key in capitals: each is
accepted. Each invalid candidate or operation is dropped on its own with a logged reason; a near-miss name is
repaired when that is safe. ``ParsedReply.complete`` tells a well-formed reply (even one that lists nothing) from
one that was empty, malformed or cut off."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from catcode.log import get_logger
from catcode.memory.store.models import CandidateMemory, MemoryAction, MemoryOperation, MemoryType
from catcode.memory.store.names import looks_like_secret, name_problem, slugify

# Any: the model's reply is JSON of unknown shape, checked item by item before anything is kept.

log = get_logger(__name__)

T = TypeVar("T")
PREVIEW_CHARS = 500
MAX_ITEMS = 200  # far more than fits in a reply's token budget; a runaway list is cut, not logged item by item
MAX_REPAIR_CHARS = 200_000  # json-repair is pure Python: a reply this long is no model's answer to mend
_DECODER = json.JSONDecoder(strict=False)  # models put raw newlines inside strings
_TYPES = {t.value: t for t in MemoryType}
_ACTIONS = {a.value: a for a in MemoryAction}
_NULLS = frozenset({"", "null", "none"})


@dataclass(frozen=True)
class ParsedReply(Generic[T]):
    """The valid items of a reply, and whether the reply could be read as it was written."""

    items: list[T]
    complete: bool
    """True when the reply held its JSON whole and well-formed (even when it listed nothing); False when it was
    empty, held no such JSON, or had to be mended (cut off, malformed): ``items`` are what could be recovered."""


def parse_candidates(text: str) -> ParsedReply[CandidateMemory]:
    """The valid candidates of an extractor reply (``{"candidates": [...]}``)."""
    items, complete = _read(text, "candidates")
    candidates = [c for i, raw in enumerate(items) if (c := candidate_from(raw, index=i)) is not None]
    return ParsedReply(candidates, complete)


def parse_operations(text: str) -> ParsedReply[MemoryOperation]:
    """The valid operations of a consolidator reply (``{"operations": [...]}``)."""
    items, complete = _read(text, "operations")
    return ParsedReply([op for i, raw in enumerate(items) if (op := _operation(raw, i)) is not None], complete)


def candidate_from(raw: Any, *, index: int, where: str = "candidate") -> CandidateMemory | None:
    """A ``CandidateMemory`` from one JSON item, or None (logged with the reason)."""
    if not isinstance(raw, dict):
        _drop(where, index, f"not an object but {type(raw).__name__}")
        return None
    values: dict[str, str] = {}
    for field in ("type", "name", "description", "content"):
        value = raw.get(field)
        if value is None:
            _drop(where, index, f"missing field {field}", raw.get("name"))
            return None
        if not isinstance(value, str):
            _drop(where, index, f"field {field} is not text", raw.get("name"))
            return None
        if not value.strip():
            _drop(where, index, f"field {field} is empty", raw.get("name"))
            return None
        values[field] = value.strip()
    memory_type = _TYPES.get(values["type"].lower())
    if memory_type is None:
        _drop(where, index, f"unknown type {values['type']!r}", values["name"])
        return None
    name = _fixed_name(values["name"], where, index)
    if name is None:
        return None
    return CandidateMemory(type=memory_type, name=name, description=values["description"], content=values["content"])


def _operation(raw: Any, index: int) -> MemoryOperation | None:
    if not isinstance(raw, dict):
        _drop("operation", index, f"not an object but {type(raw).__name__}")
        return None
    action_raw = raw.get("action")
    action = _ACTIONS.get(action_raw.strip().lower()) if isinstance(action_raw, str) else None
    if action is None:
        _drop("operation", index, f"unknown action {action_raw!r}")
        return None
    target = raw.get("targetName", raw.get("target_name"))
    if target is not None and not isinstance(target, str):
        _drop("operation", index, "targetName is not text")
        return None
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
        _drop("operation", index, f"{action.value} with an invalid entry", target)
        return None
    return MemoryOperation(action=action, target_name=target, entry=entry)


def _fixed_name(raw: str, where: str, index: int, *, field: str = "name") -> str | None:
    """``raw`` if valid, its slug if that is a safe repair, else None (logged)."""
    raw = raw.strip()
    if looks_like_secret(raw):
        _drop(where, index, f"{field} looks like a secret")  # the name itself is not logged
        return None
    problem = name_problem(raw)
    if problem is None:
        return raw
    slug = slugify(raw)
    if slug is None:
        _drop(where, index, f"invalid {field} {raw[:100]!r}: {problem}", raw)
        return None
    log.info("memory_name_repaired", where=where, index=index, original=raw[:100], name=slug)
    return slug


def _drop(where: str, index: int, reason: str, name: Any = None) -> None:
    log.warning("memory_item_dropped", where=where, index=index, reason=reason, name=str(name)[:100] if name else None)


def _read(text: Any, key: str) -> tuple[list[Any], bool]:
    """The raw items under ``key`` (at most ``MAX_ITEMS``) and whether the reply was read whole; never raises."""
    try:
        items, complete = _items(text, key)
    except Exception as exc:  # the last line of defence: a reply must never break the pipeline
        log.warning("memory_reply_unparseable", key=key, error=repr(exc), preview=_preview(text))
        return [], False
    if len(items) > MAX_ITEMS:
        log.warning("memory_reply_too_long", key=key, items=len(items), kept=MAX_ITEMS)
        items = items[:MAX_ITEMS]
    return items, complete


def _items(text: Any, key: str) -> tuple[list[Any], bool]:
    if not isinstance(text, str) or not text.strip():
        log.warning("memory_reply_unparseable", key=key, reason="empty reply", preview=_preview(text))
        return [], False
    found = _find(_strict(text), key, bare=True)
    if found is not None:
        return found, True
    import json_repair  # only for a reply that needs mending: the first request does not wait for its import

    mendable = _mendable(text)
    mended = json_repair.loads(mendable) if mendable and len(mendable) <= MAX_REPAIR_CHARS else None
    if isinstance(mended, str) and mended.lstrip().startswith("{"):
        mended = json_repair.loads(mended)  # the whole reply was one JSON string holding the object
    found = _find(mended, key, bare=False)
    if found is None:
        log.warning("memory_reply_unparseable", key=key, reason=f"no {key!r} list found", preview=_preview(text))
        return [], False
    log.warning("memory_reply_incomplete", key=key, kept=len(found), preview=_preview(text))
    return found, False


def _strict(text: str) -> Any:
    """The well-formed JSON value at the first ``{`` or ``[`` of ``text``, or None."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        return None
    try:
        return _DECODER.raw_decode(text, min(starts))[0]
    except (ValueError, RecursionError):
        return None


def _mendable(text: str) -> str:
    """``text`` up to the end of its last complete object (with none, up to its last ``{``): what follows was cut
    off, and mending it would invent the rest."""
    close = text.rfind("}")
    return text[: close + 1] if close >= 0 else text[: max(text.rfind("{"), 0)]


def _find(value: Any, key: str, *, bare: bool) -> list[Any] | None:
    """The items under ``key`` (any case) in ``value`` or in the first object of the list ``value`` that has
    them; with ``bare``, a list of objects without ``key`` is the items themselves. None when there are none."""
    for obj in value if isinstance(value, list) else [value]:
        name = _key(obj, key) if isinstance(obj, dict) else None
        if name is None:
            continue
        found = obj[name]
        if isinstance(found, list):
            return found
        if isinstance(found, dict):
            return [found]  # one item instead of a list of one
        if found is None:
            return []
    if bare and isinstance(value, list):
        return value  # a bare list of items (``[]``: nothing worth remembering)
    return None


def _key(obj: dict[Any, Any], key: str) -> Any:
    """The key of ``obj`` that is ``key`` in any case, or None."""
    if key in obj:
        return key
    return next((k for k in obj if isinstance(k, str) and k.lower() == key), None)


def _preview(text: Any) -> str:
    return text[:PREVIEW_CHARS] if isinstance(text, str) else repr(text)[:PREVIEW_CHARS]
