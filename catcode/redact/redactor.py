"""Secret redaction: API keys, tokens, private keys and password assignments become ``[REDACTED:<kind>]``; a long
random token of a format no rule knows becomes ``[REDACTED:generic_token]`` (``generic.py``).

Memory and history are plain files that live for years and may be synced or shared, so nothing that looks like
a credential is ever written to them. What counts as a secret is the rule table in ``rules.py``; this
module applies it. Redaction is idempotent: the marker is never matched again, and a pass is repeated until it
changes nothing (a replacement can bring a key and a value together).
"""

from __future__ import annotations

import bisect
import codecs
import re
from collections.abc import Iterator
from typing import Any

from catcode.redact.assignments import FLAG_ANCHOR, KEY_ANCHORS, assignment_span, secret_field_kind
from catcode.redact.generic import DEFAULT as GENERIC_DEFAULT
from catcode.redact.generic import GenericParams
from catcode.redact.generic import find as find_generic
from catcode.redact.rules import RULES, Rule
from catcode.redact.values import MARKER_PREFIX
from catcode.redact.vendor_prefixes import PREFIX_FAMILIES, PrefixFamily

# Any: redact_json walks JSON values of any shape.

__all__ = ["MARKER_PREFIX", "Redactor", "redact", "redact_json"]

_MASK = "catcode-redact-mask"


def _mask_unencodable(err: UnicodeError) -> tuple[str, int]:
    """Replace each character ASCII cannot encode by a SUB character, so offsets stay those of the text."""
    if not isinstance(err, UnicodeEncodeError):  # only ever used to encode
        raise err
    return "\x1a" * (err.end - err.start), err.end


codecs.register_error(_MASK, _mask_unencodable)


class _Spans:
    """Non-overlapping replacement spans; the first rule to claim a region wins."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.items: list[tuple[int, int, str]] = []

    def add(self, start: int, end: int, kind: str) -> bool:
        i = bisect.bisect_right(self.starts, start)
        if (i and self.items[i - 1][1] > start) or (i < len(self.items) and self.items[i][0] < end):
            return False
        self.starts.insert(i, start)
        self.items.insert(i, (start, end, kind))
        return True


class Redactor:
    """Replaces secrets in text with ``[REDACTED:<kind>]``; stateless and safe to share between threads."""

    def __init__(
        self,
        rules: tuple[Rule, ...] = RULES,
        *,
        families: tuple[PrefixFamily, ...] = PREFIX_FAMILIES,
        max_passes: int = 4,
        generic_params: GenericParams | None = GENERIC_DEFAULT,
    ) -> None:
        """``generic_params``: the generic rule for unknown token formats (``generic.py``); None leaves it out."""
        self.rules = rules
        self.families = families
        self.max_passes = max_passes
        self.generic = generic_params

    def redact(self, text: str) -> tuple[str, list[str]]:
        """Return ``(redacted text, kinds)`` with one kind per redaction."""
        kinds: list[str] = []
        regions = [(0, len(text))]
        for _ in range(self.max_passes):
            found: list[tuple[int, int, str]] = []
            for start, end in regions:
                found += [(s + start, e + start, kind) for s, e, kind in self._find(text[start:end]).items]
            if not found:
                break
            pieces: list[str] = []
            markers: list[tuple[int, int]] = []
            last, length = 0, 0
            for start, end, kind in found:
                marker = f"{MARKER_PREFIX}{kind}]"
                pieces += (text[last:start], marker)
                length += start - last
                markers.append((length, length + len(marker)))
                length += len(marker)
                kinds.append(kind)
                last = end
            pieces.append(text[last:])
            text = "".join(pieces)
            # A replacement can bring a key and a value together, or let a rejected overlapping candidate match:
            # look again, but only around what changed (no rule reaches further than its line or 150 characters).
            regions = _regions_around(text, markers)
        return text, kinds

    def redact_json(self, obj: Any) -> tuple[Any, list[str]]:
        """Redact every string inside ``obj`` (dicts, lists, tuples), and whole values under secret-named keys
        such as ``{"password": "hunter2"}``. Returns ``(new object, kinds)``; ``obj`` is not modified."""
        kinds: list[str] = []
        return self._walk(obj, kinds), kinds

    def _walk(self, obj: Any, kinds: list[str]) -> Any:
        if isinstance(obj, str):
            text, found = self.redact(obj)
            kinds.extend(found)
            return text
        if isinstance(obj, dict):
            out = {}
            for key, value in obj.items():
                kind = secret_field_kind(key, value)
                if kind:
                    kinds.append(kind)
                    out[key] = f"{MARKER_PREFIX}{kind}]"
                else:
                    out[key] = self._walk(value, kinds)
            return out
        if isinstance(obj, list | tuple):
            return type(obj)(self._walk(item, kinds) for item in obj)
        return obj

    def _find(self, text: str) -> _Spans:
        # Rules only look for ASCII (but the few ``wide`` ones), and the regex engine scans an ASCII string about
        # twice as fast as a wide one: match on a copy where each non-ASCII character is masked by one control
        # character (positions unchanged).
        original = text
        text = text if text.isascii() else text.encode("ascii", _MASK).decode("ascii")
        folded = text.lower()
        spans = _Spans()
        for rule in self.rules:
            candidates: Iterator[re.Match[str] | None]
            if rule.wide:
                candidates = rule.pattern.finditer(original) if text is not original else iter(())
            elif rule.anchor is None:
                candidates = rule.pattern.finditer(text)
            else:
                candidates = (
                    rule.pattern.match(text, rule.lead(text, a.start()) if rule.lead else a.start())
                    for a in rule.anchor.finditer(folded)
                )
            for m in candidates:
                kind = m and (rule.accept(m) if rule.accept else rule.kind)
                if m and kind:
                    spans.add(*m.span(rule.group), kind)
        for family in self.families:
            for a in family.anchor.finditer(text):
                sep = a.start()
                prefix = family.prefix.search(text, max(0, sep + 1 - family.reach), sep + 1)
                if prefix:
                    kind, body = family.body(prefix.group(1))
                    m = body.match(text, prefix.end(1))
                    if m:
                        spans.add(prefix.start(), m.end(), kind)
        key_ends = [a.end() for anchor in KEY_ANCHORS for a in anchor.finditer(folded)]
        for key_end in key_ends + [a.end() for a in FLAG_ANCHOR.finditer(text)]:
            found = assignment_span(text, key_end)
            if found:
                spans.add(*found)
        if self.generic is not None:  # last: a format some rule knows keeps that rule's kind
            for start, end, kind in find_generic(text, self.generic, folded):
                spans.add(start, end, kind)
        return spans


def _regions_around(text: str, markers: list[tuple[int, int]], reach: int = 150) -> list[tuple[int, int]]:
    """Merged spans of whole lines within ``reach`` characters of each marker."""
    regions: list[tuple[int, int]] = []
    for start, end in markers:
        a = text.rfind("\n", 0, max(0, start - reach)) + 1
        b = text.find("\n", min(len(text), end + reach))
        b = len(text) if b < 0 else b
        if regions and a <= regions[-1][1]:
            regions[-1] = (regions[-1][0], max(b, regions[-1][1]))
        else:
            regions.append((a, b))
    return regions


_DEFAULT = Redactor()


def redact(text: str) -> tuple[str, list[str]]:
    """Redact secrets in ``text``; returns ``(redacted text, kinds found)`` with one kind per redaction."""
    return _DEFAULT.redact(text)


def redact_json(obj: Any) -> tuple[Any, list[str]]:
    """Redact secrets throughout a JSON-like value (e.g. a history.jsonl record); returns ``(new obj, kinds)``."""
    return _DEFAULT.redact_json(obj)
