"""What a secret's value looks like, as opposed to a variable, a path or a placeholder.

Shared by the rule table (``rules.py``: "my password is X") and the key rules (``assignments.py``: ``key = X``):
a value is taken for a secret only when it is not a call (``get_token()``), an identifier (``token: str``), a
kebab-case resource name, a path, a small number or a placeholder (``${DB_PASSWORD}``, ``<token>``, ``xxx``), and
never when it is already a redaction marker (``MARKER_PREFIX``).
"""

from __future__ import annotations

import re

__all__ = ["KEBAB", "MARKER_PREFIX", "PATH", "PLACEHOLDER", "quoted_is_secret", "unquoted_length"]

MARKER_PREFIX = "[REDACTED:"

_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_EXPRESSION = re.compile(r"[A-Za-z_$][\w$.]*[(\[]")  # a call or subscript: get_token(), request.form['pw']
KEBAB = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+")
"""A kebab-case name (``db-credentials``): a resource's name, not a secret."""
PATH = re.compile(r"(?:~|\.{1,2})?/[\w./-]*|[A-Za-z]:\\.*")
"""A file path (``/etc/shadow``, ``~/.netrc``, ``C:\\keys``)."""
PLACEHOLDER = re.compile(
    r"\$\{?[\w.:-]*\}?|\{\{.*\}\}|\{[^{}]*\}|<[^<>]*>|%\(?\w*\)?[sd]|\*+|[xX]{3,}|\.{3}|…|\[REDACTED:\w+\].*", re.DOTALL
)
"""A stand-in for a value: ``${DB_PASSWORD}``, ``{{token}}``, ``<token>``, ``%s``, ``***``, ``xxx``, a marker."""
_STRIP_TRAILING = ")]}>.,:;"


def unquoted_length(raw: str) -> int:
    """Length of the secret at the start of an unquoted value, or 0 when the value is not a secret."""
    if _EXPRESSION.match(raw) or raw[0] in "{$%<[":
        return 0  # a call, subscript, interpolation, reference or marker: get_token(), {token}, $TOKEN
    value = raw.rstrip(_STRIP_TRAILING)
    if len(value) < 4 or PLACEHOLDER.fullmatch(value) or PATH.fullmatch(value):
        return 0
    if value.isdigit() and len(value) <= 8:  # max_token = 4096
        return 0
    if _IDENTIFIER.fullmatch(value) and ("." in value or not any(c.isdigit() for c in value)):
        return 0  # a variable, constant, type or attribute: password = user_input, token: str, pw: self.pw
    if KEBAB.fullmatch(value):
        return 0  # a resource name: secret: db-credentials
    return len(value)


def quoted_is_secret(value: str) -> bool:
    """A quoted literal is a secret unless it is empty or a placeholder such as ``${DB_PASSWORD}``."""
    value = value.strip()
    return bool(value) and not PLACEHOLDER.fullmatch(value)
