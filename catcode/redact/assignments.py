"""Secrets under a secret-named key: ``key = value``, ``key: "value"``, ``--key value``, ``<key>value</key>`` in text,
and ``{"password": "…"}`` fields in JSON.

``KEY_ANCHORS`` (run on the lowercased text) and ``FLAG_ANCHOR`` find where such a key ends; ``assignment_span``
then says where its value is and what kind of secret it is, ``secret_field_kind`` does the same for a JSON field.
The keyword must end the key name (``max_tokens`` is no key), and the value must look chosen, not be code
(``token = get_token()``) or a placeholder — ``values.py`` judges that. ``redactor.py`` runs them.
"""

from __future__ import annotations

import re

from catcode.redact.values import MARKER_PREFIX, quoted_is_secret, unquoted_length

__all__ = ["FLAG_ANCHOR", "KEY_ANCHORS", "assignment_span", "secret_field_kind"]

# Key names whose value is a secret. The keyword must END the key name: `max_tokens` and `token_count` are not keys.
# The `<word>key` names are detect-secrets' keyword list (AccountKey is Azure's storage connection string).
_KEY_WORDS = r"(?:api|access|private|priv|auth|secret|account|app|client|service|master|encryption|signing|db)"
_SECRET_KEY = r"(?:passw(?:or)?d|pass_?phrase|passcode|pwd|token|secret|" + _KEY_WORDS + r"[_-]?key|credentials?)"
_KEY_SUFFIXES = (
    "password", "passwd", "passphrase", "pass_phrase", "passcode", "pwd", "_pass", "-pass", "token", "secret",
    "credential", "credentials",
    *(f"{word}{sep}key" for word in (
        "api", "access", "private", "priv", "auth", "secret", "account", "app", "client", "service", "master",
        "encryption", "signing", "db",
    ) for sep in ("", "_", "-")),
)  # fmt: skip
_SECRET_FIELD = re.compile(r"[\w.-]*" + _SECRET_KEY + r"|(?:[\w.-]*[_.-])?pass", re.IGNORECASE)
_KEY_NEEDLES = (r"pass(?:w(?:or)?d|_?phrase|code)?", "pwd", "token", "secret", "key", "credentials?")
# After the key: optional closing quote, separator, then a quoted literal or a bare value (printable ASCII only,
# so Chinese prose after "token:" is never taken for a value).
_ASSIGNMENT_TAIL = re.compile(
    r"[\"']?(?P<sep>[ \t]*(?::=|=>|=(?!=)|:(?!:|//)|>)[ \t]*|[ \t]+)"
    r"(?:(?P<q>[\"'`])(?P<qv>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)|(?P<uv>(?:(?![\'\"`,;&<])[\x21-\x7e])+))"
)

# `key = value`, `key: "value"`, `<key>value`: anchored on the keyword that ends the key, when a separator follows.
_SEPARATOR_AHEAD = r"(?=[\"']?[ \t]*(?::=|=>|=(?!=)|:(?!:|//)|>))"
KEY_ANCHORS = tuple(re.compile(needle + _SEPARATOR_AHEAD) for needle in _KEY_NEEDLES)
# `--password value`, `--api-key=value`
FLAG_ANCHOR = re.compile(r"--(?<![\w-]--)[\w-]*?" + _SECRET_KEY + r"(?=[ \t=])", re.IGNORECASE)


def _kind_for_key(key: str) -> str:
    """Name the redaction after the key: ``DB_PASSWORD`` → password, ``aws_secret_access_key`` → aws_secret_key."""
    key = key.lower()
    if "aws" in key and "secret" in key:
        return "aws_secret_key"
    if key.replace("_", "").replace("-", "").endswith("accountkey"):
        return "azure_storage_key"
    for needle, kind in (
        ("pass", "password"),
        ("pwd", "password"),
        ("private", "private_key"),
        ("token", "token"),
        ("api", "api_key"),
        ("secret", "secret"),
        ("access", "access_key"),
        ("auth", "auth_key"),
    ):
        if needle in key:
            return kind
    return "credential"


def _key_start(text: str, end: int) -> int:
    """Where the key name ending at ``end`` starts (``DB_`` in ``DB_PASSWORD``, ``--`` in ``--token``)."""
    start = end
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_.-"):
        start -= 1
    return start


def assignment_span(text: str, key_end: int) -> tuple[int, int, str] | None:
    """The secret value of ``key = value`` / ``key: "value"`` / ``--key value`` / ``<key>value`` whose key ends at
    ``key_end``, as ``(start, end, kind)``; None when there is none."""
    m = _ASSIGNMENT_TAIL.match(text, key_end)
    if not m or not text[max(0, key_end - 16) : key_end].lower().endswith(_KEY_SUFFIXES):
        return None  # `monkey: x` ends with "key" but is no secret's key
    sep = m.group("sep").strip()
    if sep in ("", ">"):
        key_start = _key_start(text, key_end)
        if sep == "" and text[key_start : key_start + 2] != "--":
            return None  # a bare space after a key that is not a command-line flag
        if sep == ">" and text[key_start - 1 : key_start] != "<":
            return None  # only <password>value</password>
    if m.group("uv") is not None:
        start = m.start("uv")
        end = start + unquoted_length(m.group("uv"))
    else:
        start, end = m.span("qv")
        if not quoted_is_secret(m.group("qv")):
            end = start
    if end > start:
        return start, end, _kind_for_key(text[_key_start(text, key_end) : key_end])
    return None


def secret_field_kind(key: object, value: object) -> str | None:
    """The kind when ``{key: value}`` is a credential field such as ``{"password": "hunter2"}``, else None."""
    if not isinstance(key, str) or not _SECRET_FIELD.fullmatch(key):
        return None
    if isinstance(value, str):
        secret = quoted_is_secret(value) and not value.startswith(MARKER_PREFIX)
    else:
        secret = isinstance(value, int) and not isinstance(value, bool) and len(str(value)) > 8
    return _kind_for_key(key) if secret else None
