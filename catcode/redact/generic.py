"""The generic rule: a long, high-entropy token nobody wrote a vendor rule for.

The rule table (``rules.py``) knows vendor formats by name; a new vendor's token slips through it. This rule
catches the shapes almost every API token has, and the words that say a token follows, judged by the randomness
of its body rather than its vendor:

- *prefix-shaped*: a short word, a ``_``, ``-`` or ``.``, then a long random run — ``acme_live_8fK2…``,
  ``zpk-Q7m…``, ``sk.eyJ…``, ``dp.xy.Q7m…``;
- *assigned to a secret-looking key*: ``ACME_KEY=…``, ``"x-acme-signature": "…"``, ``authToken: …`` — a key
  name holding key/token/secret/auth/pass/credential/signature/session/dsn, with a long random value;
- *named in prose*: "my Mistral token is …", "the API key: …", "here is the deploy token …" — a random run right
  after a word that names a secret (but a cache, sort, public or primary key, an id or a hash).

"Random" (``GenericParams``): at least ``min_body`` characters, letters and digits both, mixed case or long hex
(or one case only when long and of high entropy: ``NRAK-…``), and a Shannon entropy of at least ``min_entropy``
bits per character. What merely looks random is left alone: git
SHAs and SHA-256 digests (hex of exactly 40 or 64), UUIDs, lockfile and image hashes (``sha512-…``, ``h1:…``,
base64 with ``+``/``/``), a file name's hash (``app-3f2a….js``), paths, and keys that name public or derived
values (``public_key``, ``key_id``, ``cache_key_hash``). ``scripts/bench_redaction.py`` fits the three numbers on the
seen half of its formats and measures recall on the other half and precision on look-alikes."""

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
_DOT = re.compile(r"\.(?=[A-Za-z0-9_-]{16})")
_BETWEEN = (
    r"s?(?:'s)?(?:[ \t]+(?:is|was|reads)|[ \t]*[:=]|[ \t]+(?:for|of)[ \t]+\w+[ \t]*[:=]?)?[ \t]+[\"'`]?"
    r"(?=[a-z0-9_+/.~=-]{20})"  # a value long enough to judge: most mentions of a key are followed by words
)
_NAMED = tuple(
    re.compile(word + _BETWEEN) for word in ("key", "token", "secret", "credential", "password", "passphrase", "pat")
)
"""A word naming a secret, then what may stand between it and the value (run on the lowercased text; one
literal-led pattern per word: an alternation would scan ten times slower)."""
_NOT_A_SECRET_BEFORE = frozenset({
    "cache", "sort", "primary", "public", "foreign", "partition", "idempotency", "object", "row", "hash", "lookup",
    "dedup", "dedupe", "routing", "shard", "map", "dict", "index", "unique", "composite", "natural", "surrogate",
    "ssh", "gpg", "pgp", "host", "fingerprint", "license", "product", "registry", "trace", "correlation", "next",
    "page", "cursor", "continuation",
})  # fmt: skip
"""Words before "key" or "token" that make it not a credential: a cache key, a public key, a page token."""
_ASSIGN = (re.compile(r"=(?=[\"'`]?[\w+/.~-]{16})"), re.compile(r":(?=[ \t]*[\"'`]?[\w+/.~-]{16})"))
_TOKEN_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_KEY_CHARS = _TOKEN_CHARS | {"."}
_VALUE = re.compile(r"[ \t]*(?P<q>[\"'`]?)(?P<v>[\w+/.~=-]+)")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-fA-F]+")
_NO_DIGITS = str.maketrans("", "", "0123456789")
_NO_LETTERS = str.maketrans("", "", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True)
class GenericParams:
    """What "random enough" means: the length of a prefix-shaped token's body, the length of a value under a
    secret-looking key (the key already says what it is), and the entropy in bits per character of either."""

    min_body: int = 28
    min_entropy: float = 3.6
    min_assigned: int = 24


# The numbers ``scripts/bench_redaction.py`` fits on the seen half of its formats (``tests/security/secret_formats``:
# the strictest of the equally good ones, with no vendor rule helping, touching no look-alike of the fitting half):
# recall on the unseen half and precision on look-alikes are measured with exactly these.


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
    digits = len(body) - len(body.translate(_NO_DIGITS))
    letters = len(body) - len(body.translate(_NO_LETTERS))  # counted in C: this runs for every candidate
    if letters < 2 or digits < 2:
        return False
    if _HEX.fullmatch(body):
        if len(body) in (40, 64) or len(body) < 32:  # a git SHA or a SHA-256 digest; short hex is an id
            return False
        return entropy(body) >= min(params.min_entropy, 3.0)  # 16 symbols: at most 4 bits a character
    elif (body.lower() == body or body.upper() == body) and len(body) < 32:
        # one case: random only when long enough and spread enough over its alphabet (NRAK-7BE9BUUU…)
        return len(body) >= 24 and letters >= 6 and digits >= 4 and entropy(body) >= 3.8
    return entropy(body) >= params.min_entropy


def find(text: str, params: GenericParams = DEFAULT, folded: str | None = None) -> list[tuple[int, int, str]]:
    """``(start, end, kind)`` of every generic token in ``text`` (overlaps are settled by the caller); ``folded`` is
    ``text`` lowercased, when the caller has it."""
    found: list[tuple[int, int, str]] = []
    seen: set[int] = set()
    for anchor in _SEPARATORS:
        for match in anchor.finditer(text):
            start, end = _token_around(text, match.start())
            if start not in seen:
                seen.add(start)
                if _prefix_shaped(text, start, end, params):
                    found.append((start, end, KIND))
    for match in _DOT.finditer(text):
        span = _dotted(text, match.start(), params)
        if span is not None and span[0] not in seen:
            seen.add(span[0])
            found.append((*span, KIND))
    folded = folded if folded is not None else text.lower()
    for pattern in _NAMED:
        for match in pattern.finditer(folded):
            span = _named(text, match, params)
            if span is not None:
                found.append((*span, KIND))
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
    if len(parts) < 2 or len(parts) > max(6, len(token) // 8) or not parts[0][:1].isalpha() or len(parts[0]) > 16:
        return False
    if any(p.lower() in HASH_WORDS for p in parts[:-1]):
        return False
    body = token[len(parts[0]) + 1 :]
    separators = body.count("_") + body.count("-")
    if separators > max(2, len(body) // 10):
        return False  # snake_case or kebab-case words: a_long_function_name_v2
    one_case = body.upper() == body or body.lower() == body
    return random_enough(body, params, 24 if one_case and not _HEX.fullmatch(body) else None)


def _dotted(text: str, dot: int, params: GenericParams) -> tuple[int, int] | None:
    """``sk.eyJ…``, ``dp.xy.Q7m…``: one or two short words with dots, then a long random run (not a file name, a
    host name or an attribute: what follows the run is no ``.name``, ``/`` or ``@``)."""
    start = dot
    while start > 0 and dot - start < 17 and (text[start - 1].isalnum() or text[start - 1] == "."):
        start -= 1
    prefix = text[start:dot]
    parts = prefix.split(".")
    if not prefix or not all(p.isalpha() and len(p) <= 8 for p in parts) or len(parts) > 2:
        return None
    if (start and text[start - 1] in "/\\@#%+~$&?_-:") or any(p.lower() in HASH_WORDS for p in parts):
        return None
    end = dot + 1
    while end < len(text) and end - dot < 400 and text[end] in _TOKEN_CHARS:
        end += 1
    after = text[end : end + 2]
    if (after[:1] and after[:1] in "/\\@") or (after[:1] == "." and after[1:2].isalnum()):
        return None
    return (start, end) if random_enough(text[dot + 1 : end], params) else None


def _named(text: str, cue: re.Match[str], params: GenericParams) -> tuple[int, int] | None:
    """The random run right after a word naming a secret ("the API key is …"), unless the word is part of another
    (``monkey``; ``apikey`` and ``api_key`` are the word) or the one before it names something that is not a
    secret ("the cache key is …")."""
    start = cue.start()
    joined = text[max(0, start - 4) : start].lower()
    if start and text[start - 1].isalnum() and not joined.endswith("api"):
        return None
    before = text[max(0, start - 24) : start].lower().split()
    if before and before[-1].strip(".,:;()") in _NOT_A_SECRET_BEFORE:
        return None
    m = _VALUE.match(text, cue.end())
    if m is None or m.start("v") != cue.end():
        return None
    value = m.group("v").rstrip(".=")
    if "://" in text[m.start("v") : m.end("v") + 3] or value.startswith(("/", ".", "~")) or "/" in value[:1]:
        return None
    core = value.replace("-", "").replace("_", "")
    if len(value) < 20 or not random_enough(core, params, 20):
        return None
    return m.start("v"), m.start("v") + len(value)


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
