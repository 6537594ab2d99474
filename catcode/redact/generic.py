"""The generic rule: a long, high-entropy token nobody wrote a vendor rule for.

The rule table (``rules.py``) knows vendor formats by name; a new vendor's token slips through it. This rule
catches the two shapes almost every API token has, judged by the randomness of its body rather than its vendor:

- *prefix-shaped*: a short word, a ``_`` or ``-``, then a long random run — ``acme_live_8fK2…``, ``zpk-Q7m…``;
- *assigned to a secret-looking key*: ``ACME_KEY=…``, ``"x-acme-signature": "…"``, ``authToken: …`` — a key
  name holding key/token/secret/auth/pass/credential/signature/session/dsn, with a long random value.

"Random" (``GenericParams``): at least ``min_body`` characters, letters and digits both, mixed case or long hex,
and a Shannon entropy of at least ``min_entropy`` bits per character. What merely looks random is left alone: git
SHAs and SHA-256 digests (hex of exactly 40 or 64), UUIDs, lockfile and image hashes (``sha512-…``, ``h1:…``,
base64 with ``+``/``/``), a file name's hash (``app-3f2a….js``), paths, and keys that name public or derived
values (``public_key``, ``key_id``, ``cache_key_hash``). ``scripts/bench_redaction.py`` fits the two numbers on half
the vendor formats of its corpus and measures recall on the other half and precision on look-alikes."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

KIND = "generic_token"
HASH_WORDS = frozenset({
    "sha", "sha1", "sha224", "sha256", "sha384", "sha512", "sha3", "md5", "blake2b", "blake2s", "blake3", "xxh64",
    "crc32", "h1", "git", "commit", "rev", "revision", "hash", "digest", "checksum", "integrity", "etag", "build",
    "chunk", "uuid", "guid", "id", "v", "version", "release", "tag", "node", "modules",
})  # fmt: skip
"""Words before a separator that announce a hash or a name, never a credential."""
_SECRET_KEY = re.compile(r"(?i)(?:key|token|secret|auth|pass|pwd|credential|cred|signature|sig|session|dsn|cookie)")
_NOT_SECRET_KEY = re.compile(
    r"(?i)(?:public|pub[_-]|hash|digest|checksum|integrity|fingerprint|(?:^|[_.-]|[a-z])(?:id|ids|name|names|type|"
    r"url|uri|path|file|size|len|length|count|version|prefix|format|field|header|env|var)$)"
)
_SEPARATORS = (re.compile(r"_(?=[A-Za-z0-9]{16})"), re.compile(r"-(?=[A-Za-z0-9]{16})"))
_ASSIGN = (re.compile(r"=(?=[\"'`]?[\w+/.~-]{16})"), re.compile(r":(?=[ \t]*[\"'`]?[\w+/.~-]{16})"))
_TOKEN_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_KEY_CHARS = _TOKEN_CHARS | {"."}
_VALUE = re.compile(r"[ \t]*(?P<q>[\"'`]?)(?P<v>[\w+/.~=-]+)")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-fA-F]+")


@dataclass(frozen=True)
class GenericParams:
    """What "random enough" means: the length of a prefix-shaped token's body, the length of a value under a
    secret-looking key (the key already says what it is), and the entropy in bits per character of either."""

    min_body: int = 32
    min_entropy: float = 3.4
    min_assigned: int = 24


# The numbers ``scripts/bench_redaction.py`` fits on the seen half of its vendor formats (the strictest of the
# equally good ones): recall on the unseen half and precision on look-alikes are measured with exactly these.


DEFAULT = GenericParams()
"""The parameters catcode uses."""


def entropy(text: str) -> float:
    """Shannon entropy of ``text`` in bits per character."""
    counts = Counter(text)
    total = len(text)
    return -sum(n / total * math.log2(n / total) for n in counts.values()) if total else 0.0


def random_enough(body: str, params: GenericParams = DEFAULT, minimum: int | None = None) -> bool:
    """Does ``body`` look generated: long (``minimum``, default ``params.min_body``), letters and digits, mixed
    case or long hex, high entropy, and not a SHA, a digest or a UUID?"""
    if len(body) < (params.min_body if minimum is None else minimum) or _UUID.fullmatch(body):
        return False
    body = body.replace("-", "").replace("_", "")
    letters = sum(c.isalpha() for c in body)
    digits = sum(c.isdigit() for c in body)
    if letters < 2 or digits < 2:
        return False
    if _HEX.fullmatch(body):
        if len(body) in (40, 64) or len(body) < 32:  # a git SHA or a SHA-256 digest; short hex is an id
            return False
    elif not (any(c.isupper() for c in body) and any(c.islower() for c in body)) and len(body) < 32:
        return False
    return entropy(body) >= params.min_entropy


def find(text: str, params: GenericParams = DEFAULT) -> list[tuple[int, int, str]]:
    """``(start, end, kind)`` of every generic token in ``text`` (overlaps are settled by the caller)."""
    found: list[tuple[int, int, str]] = []
    seen: set[int] = set()
    for anchor in _SEPARATORS:
        for match in anchor.finditer(text):
            start, end = _token_around(text, match.start())
            if start not in seen:
                seen.add(start)
                if _prefix_shaped(text, start, end, params):
                    found.append((start, end, KIND))
    for anchor in _ASSIGN:
        for match in anchor.finditer(text):
            span = _assigned(text, match.start(), params)
            if span is not None:
                found.append((*span, KIND))
    return found


def _token_around(text: str, at: int) -> tuple[int, int]:
    start = at
    while start > 0 and at - start < 64 and text[start - 1] in _TOKEN_CHARS:
        start -= 1
    end = at
    while end < len(text) and end - at < 400 and text[end] in _TOKEN_CHARS:
        end += 1
    return start, end


def _prefix_shaped(text: str, start: int, end: int, params: GenericParams) -> bool:
    before = text[start - 1] if start else " "
    after = text[end : end + 2]
    if (before and before in "/\\.@#%+~$&?") or before.isalnum():
        return False  # part of a path, a URL, a file name or another word
    if (after[:1] and after[:1] in "/\\@") or (after[:1] == "." and after[1:2].isalnum()):
        return False  # a path segment or a file name: app-3f2a9c….js
    token = text[start:end].strip("_-")
    parts = [p for p in re.split(r"[_-]", token) if p]
    if len(parts) < 2 or len(parts) > 6 or not parts[0][:1].isalpha() or len(parts[0]) > 16:
        return False
    if any(p.lower() in HASH_WORDS for p in parts[:-1]):
        return False
    body = token[len(parts[0]) + 1 :]
    separators = body.count("_") + body.count("-")
    if separators > max(2, len(body) // 10):
        return False  # snake_case or kebab-case words: a_long_function_name_v2
    return random_enough(body, params)


def _assigned(text: str, at: int, params: GenericParams) -> tuple[int, int] | None:
    key_end = at
    while key_end > 0 and text[key_end - 1] in "\"'` \t":
        key_end -= 1
    key_start = key_end
    while key_start > 0 and key_end - key_start < 64 and text[key_start - 1] in _KEY_CHARS:
        key_start -= 1
    key = text[key_start:key_end]
    if not key or not _SECRET_KEY.search(key) or _NOT_SECRET_KEY.search(key):
        return None
    m = _VALUE.match(text, at + 1)
    if m is None:
        return None
    value = m.group("v")
    if m.group("q") and text[m.end() : m.end() + 1] != m.group("q"):
        return None  # a quoted text that goes on with spaces: prose, not a token
    if "://" in text[m.start("v") : m.end("v") + 3] or value.startswith(("/", ".", "~")):
        return None
    core = value.rstrip("=")
    if not random_enough(core, params, params.min_assigned):
        return None
    return m.start("v"), m.end("v")
