"""The redaction rule table: what counts as a secret, and what merely looks like one.

``RULES`` detects real-shaped credentials (private keys, JWTs, provider API keys, tokens in URLs and headers);
``KEY_ANCHORS``/``FLAG_ANCHOR`` with ``assignment_span`` find the value of ``key = value``, ``key: "value"``,
``--key value`` and ``<key>value`` under a secret-named key; ``secret_field_kind`` does the same for JSON fields.
The rules favour precision on ordinary developer text (git SHAs, digests, UUIDs, code such as
``token = get_token()``, prose about passwords) while catching real-shaped secrets. ``redactor.py`` applies them.

Speed: CPython's regex engine only skips through a megabyte at C speed when a pattern starts with a literal; a
case-insensitive or alternation-led pattern costs tens of milliseconds. So every pattern starts with a literal,
and case-insensitive keywords are found by literal *anchors* on a lowercased copy of the text, the full
pattern being matched only at those positions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["FLAG_ANCHOR", "KEY_ANCHORS", "MARKER_PREFIX", "RULES", "Rule", "assignment_span", "secret_field_kind"]

MARKER_PREFIX = "[REDACTED:"

# Key names whose value is a secret. The keyword must END the key name: `max_tokens` and `token_count` are not keys.
_SECRET_KEY = (
    r"(?:passw(?:or)?d|pass_?phrase|token|secret|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key|credentials?)"
)
_KEY_SUFFIXES = (
    "password", "passwd", "passphrase", "pass_phrase", "token", "secret", "credential", "credentials",
    "apikey", "api_key", "api-key", "accesskey", "access_key", "access-key", "privatekey", "private_key",
    "private-key", "authkey", "auth_key", "auth-key",
)  # fmt: skip
_SECRET_FIELD = re.compile(r"[\w.-]*" + _SECRET_KEY, re.IGNORECASE)
_KEY_NEEDLES = (r"pass(?:w(?:or)?d|_?phrase)", "token", "secret", "key", "credentials?")
# After the key: optional closing quote, separator, then a quoted literal or a bare value (printable ASCII only,
# so Chinese prose after "token:" is never taken for a value).
_ASSIGNMENT_TAIL = re.compile(
    r"[\"']?(?P<sep>[ \t]*(?::=|=>|=(?!=)|:(?!:|//)|>)[ \t]*|[ \t]+)"
    r"(?:(?P<q>[\"'`])(?P<qv>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)|(?P<uv>(?:(?![\'\"`,;&<])[\x21-\x7e])+))"
)

_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_EXPRESSION = re.compile(r"[A-Za-z_$][\w$.]*[(\[]")  # a call or subscript: get_token(), request.form['pw']
_KEBAB = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+")
_PATH = re.compile(r"(?:~|\.{1,2})?/[\w./-]*|[A-Za-z]:\\.*")
_PLACEHOLDER = re.compile(
    r"\$\{?[\w.:-]*\}?|\{\{.*\}\}|\{[^{}]*\}|<[^<>]*>|%\(?\w*\)?[sd]|\*+|[xX]{3,}|\.{3}|…|\[REDACTED:\w+\].*", re.DOTALL
)
_STRIP_TRAILING = ")]}>.,:;"


@dataclass(frozen=True)
class Rule:
    """One detector whose ``group`` is replaced when ``accept`` returns a kind (default: ``kind``).

    Without an ``anchor`` the ``pattern`` is scanned over the text and must begin with a literal (lookbehinds go
    after it) so that the regex engine can skip ahead at C speed. With an ``anchor`` (a literal-led pattern run on
    the lowercased text, for case-insensitive keywords) the ``pattern`` is only matched where the anchor matched,
    or where ``lead`` says the match starts."""

    kind: str
    pattern: re.Pattern[str]
    group: int | str = 0
    accept: Callable[[re.Match[str]], str | None] | None = None
    anchor: re.Pattern[str] | None = None
    lead: Callable[[str, int], int] | None = None


def _tokenish(value: str) -> bool:
    """A bearer/authorization value that looks generated rather than an English word."""
    if len(value) < 8 or value.startswith(MARKER_PREFIX):
        return False
    if any(c.isdigit() or c in "._~+/=" for c in value):
        return True
    return any(c.isupper() for c in value) and any(c.islower() for c in value) and not value[1:].islower()


def _unquoted_length(raw: str) -> int:
    """Length of the secret at the start of an unquoted value, or 0 when the value is not a secret."""
    if _EXPRESSION.match(raw) or raw[0] in "{$%<[":
        return 0  # a call, subscript, interpolation, reference or marker: get_token(), {token}, $TOKEN
    value = raw.rstrip(_STRIP_TRAILING)
    if len(value) < 4 or _PLACEHOLDER.fullmatch(value) or _PATH.fullmatch(value):
        return 0
    if value.isdigit() and len(value) <= 8:  # max_token = 4096
        return 0
    if _IDENTIFIER.fullmatch(value) and ("." in value or not any(c.isdigit() for c in value)):
        return 0  # a variable, constant, type or attribute: password = user_input, token: str, pw: self.pw
    if _KEBAB.fullmatch(value):
        return 0  # a resource name: secret: db-credentials
    return len(value)


def _quoted_is_secret(value: str) -> bool:
    """A quoted literal is a secret unless it is empty or a placeholder such as ``${DB_PASSWORD}``."""
    value = value.strip()
    return bool(value) and not _PLACEHOLDER.fullmatch(value)


def _kind_for_key(key: str) -> str:
    """Name the redaction after the key: ``DB_PASSWORD`` → password, ``aws_secret_access_key`` → aws_secret_key."""
    key = key.lower()
    if "aws" in key and "secret" in key:
        return "aws_secret_key"
    for needle, kind in (
        ("pass", "password"),
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


def _scheme_start(text: str, i: int) -> int:
    """Start of the URL scheme ending at the ``://`` found at ``i``."""
    while i > 0 and (text[i - 1].isalnum() or text[i - 1] in "+.-"):
        i -= 1
    return i


def _rule(kind: str, pattern: str, anchor: str | None = None, **kwargs: Any) -> Rule:
    return Rule(kind, re.compile(pattern), anchor=re.compile(anchor) if anchor else None, **kwargs)


def _openai_or_anthropic(m: re.Match[str]) -> str | None:
    if m.group().startswith("sk-ant-"):
        return "anthropic_key"
    # `sk-learn-is-not-a-secret-key` is words; a key has a long random run between separators.
    return "openai_key" if max(map(len, re.split(r"[-_]", m.group()[3:]))) >= 16 else None


RULES: tuple[Rule, ...] = (
    _rule(
        "private_key",
        r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]{0,16384}?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?:\s*[A-Za-z0-9+/=]{16,})*)",
    ),
    _rule("jwt", r"eyJ(?<![\w-]eyJ)[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"),
    _rule(
        "openai_key",
        r"sk-(?<![\w-]sk-)(?:ant-|(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_-]{20,}",
        accept=_openai_or_anthropic,
    ),
    _rule("aws_access_key_id", r"A(?<![A-Z0-9]A)(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}(?![A-Z0-9])"),
    _rule("github_token", r"gh(?<![\w-]gh)[pousr]_[A-Za-z0-9]{30,255}"),
    _rule("github_token", r"github_pat_(?<![\w-]github_pat_)[A-Za-z0-9_]{22,255}"),
    _rule("gitlab_token", r"glpat-(?<![\w-]glpat-)[A-Za-z0-9_-]{20,}"),
    _rule("slack_token", r"x(?<![\w-]x)(?:ox[abprs]-[A-Za-z0-9-]{10,}|app-\d-[A-Za-z0-9-]{10,})"),
    _rule("google_api_key", r"AIza(?<![\w-]AIza)[0-9A-Za-z_-]{35}(?![\w-])"),
    _rule(
        "stripe_key",
        r"(?<![\w-])[sr]k_(?:live|test)_[0-9a-zA-Z]{16,}",
        r"k_(?:live|test)_",
        lead=lambda _text, i: i - 1,
    ),
    _rule(
        "url_password",
        r"(?<![A-Za-z0-9+.-])[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/?#:@]+:(?P<pw>[^\s/?#]+)@(?=[^\s/?#@])",
        r"://",
        group="pw",
        accept=lambda m: None if m.group("pw").startswith(MARKER_PREFIX) else "url_password",
        lead=_scheme_start,
    ),
    _rule(
        "password",  # curl -u user:password, --user=user:password
        r"(?<![\w-])-(?:u|-user)[ \t=]+[\"']?[^\s:\"'@]+:(?P<pw>[^\s\"']+)",
        r"-(?:u[ \t]|-user[ \t=])",
        group="pw",
        accept=lambda m: None if m.group("pw").startswith(MARKER_PREFIX) else "password",
    ),
    *(  # a credential after "Authorization:" or "Bearer", when it looks like a token rather than a word
        _rule(kind, pattern, anchor, group="v", accept=lambda m, kind=kind: kind if _tokenish(m.group("v")) else None)
        for kind, pattern, anchor in (
            (
                "authorization",
                r"(?i)authorization[\"']?[ \t]*[:=][ \t]*[\"']?(?:[a-z]+[ \t]+)?(?P<v>[A-Za-z0-9._~+/-]{8,}=*)",
                r"authorization",
            ),
            ("bearer_token", r"(?i)(?<![a-z0-9_])bearer[ \t]+(?P<v>[A-Za-z0-9._~+/-]{8,}=*)", r"bearer[ \t]"),
        )
    ),
    *(
        _rule(
            "aws_secret_key",
            # 40 base64 characters near "aws"/"secret", mixed case (a hex SHA-1 has no upper case, so never matches).
            r"(?i:aws|secret)[\s\S]{0,100}?(?<![A-Za-z0-9/+=])(?P<v>(?=[A-Za-z0-9/+]{0,39}[a-z])"
            r"(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[0-9/+])[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
            context,
            group="v",
        )
        for context in ("aws", "secret")
    ),
)

# `key = value`, `key: "value"`, `<key>value`: anchored on the keyword that ends the key, when a separator follows.
_SEPARATOR_AHEAD = r"(?=[\"']?[ \t]*(?::=|=>|=(?!=)|:(?!:|//)|>))"
KEY_ANCHORS = tuple(re.compile(needle + _SEPARATOR_AHEAD) for needle in _KEY_NEEDLES)
# `--password value`, `--api-key=value`
FLAG_ANCHOR = re.compile(r"--(?<![\w-]--)[\w-]*?" + _SECRET_KEY + r"(?=[ \t=])", re.IGNORECASE)


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
        end = start + _unquoted_length(m.group("uv"))
    else:
        start, end = m.span("qv")
        if not _quoted_is_secret(m.group("qv")):
            end = start
    if end > start:
        return start, end, _kind_for_key(text[_key_start(text, key_end) : key_end])
    return None


def secret_field_kind(key: Any, value: Any) -> str | None:
    """The kind when ``{key: value}`` is a credential field such as ``{"password": "hunter2"}``, else None."""
    if not isinstance(key, str) or not _SECRET_FIELD.fullmatch(key):
        return None
    if isinstance(value, str):
        secret = _quoted_is_secret(value) and not value.startswith(MARKER_PREFIX)
    else:
        secret = isinstance(value, int) and not isinstance(value, bool) and len(str(value)) > 8
    return _kind_for_key(key) if secret else None
