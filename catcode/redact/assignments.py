"""Secrets under a secret-named key: ``key = value``, ``key: "value"``, ``--key value``, ``<key>value</key>`` in text,
and ``{"password": "…"}`` fields in JSON.

``KEY_ANCHORS`` (run on the lowercased text) and ``FLAG_ANCHOR`` find where such a key ends; ``assignment_span``
then says where its value is and what kind of secret it is, ``secret_field_kind`` does the same for a JSON field.
The keyword must end the key name (``max_tokens`` is no key). What holds the value decides how it is judged
(``values.py``): where only a literal can stand — an environment or config line (``DB_PASSWORD=letmeinplease``,
``PASSWORD = hunter``, a line of an ``[ini]`` section), a connection string (``;Password=…;``), a query
(``&password=…``), a YAML value running to the end of its line, ``<password>…</password>``, a flag — any value
but a stand-in is the secret, all-lowercase words included, and under a password's key a YAML value of several
words is a passphrase (``passphrase: correct horse battery staple``). Elsewhere it is code (``token =
get_token()``, ``password: str``, ``login(password=pw)``) and only a value that looks chosen is taken.
``redactor.py`` runs them.
"""

from __future__ import annotations

import re

from catcode.redact.values import MARKER_PREFIX, literal_length, passphrase_words, quoted_is_secret, unquoted_length

__all__ = ["FLAG_ANCHOR", "KEY_ANCHORS", "assignment_span", "secret_field_kind"]

# Key names whose value is a secret. The keyword must END the key name: `max_tokens` and `token_count` are not keys.
# The `<word>key` names are detect-secrets' keyword list (AccountKey is Azure's storage connection string).
_KEY_WORDS = r"(?:api|access|private|priv|auth|secret|account|app|client|service|master|encryption|signing|db)"
_SECRET_KEY = r"(?:passw(?:or)?d|pass_?phrase|passcode|pwd|token|secret|" + _KEY_WORDS + r"[_-]?key|credentials?)"
_KEY_SUFFIXES = (
    "password", "passwd", "passphrase", "pass_phrase", "passcode", "pwd", "_pass", "-pass", "token", "secret",
    "credential", "credentials", "secret_key_base", "secretkeybase", "apikey",
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
    if not m:
        return None
    key_start = _key_start(text, key_end)
    named = text[max(0, key_end - 16) : key_end].lower().endswith(_KEY_SUFFIXES)
    if not named and (text[key_start:key_end].lower() != "pass" or _line_before(text, key_start).strip()):
        return None  # `monkey: x` ends with "key" but is no secret's key; a line's own `pass: x` is one
    sep = m.group("sep").strip()
    if sep in ("", ">"):
        if sep == "" and text[key_start : key_start + 2] != "--":
            return None  # a bare space after a key that is not a command-line flag
        if sep == ">" and text[key_start - 1 : key_start] != "<":
            return None  # only <password>value</password>
    if m.group("uv") is not None:
        start = m.start("uv")
        password = _PASSWORD_KEY.search(text[key_start:key_end]) is not None
        if not _literal_context(text, key_start, m):
            end = start + unquoted_length(m.group("uv"))
        elif sep == ":" and password and (words := passphrase_words(text[start:])):
            end = start + words
        elif sep != ":" or _ends_line(text, m.end("uv")):
            end = start + literal_length(m.group("uv"), password=password)
        else:
            end = start + unquoted_length(m.group("uv"))  # "Password: see the vault" goes on: prose
    else:
        start, end = m.span("qv")
        if not quoted_is_secret(m.group("qv")):
            end = start
    if end > start:
        return start, end, _kind_for_key(text[_key_start(text, key_end) : key_end])
    return None


_PASSWORD_KEY = re.compile(r"(?i)pass(?:w(?:or)?d|_?phrase|code)?$|pwd$")
_INI_SECTION = re.compile(r"\[[\w .:-]+\][ \t]*")


def _in_ini_section(text: str, at: int) -> bool:
    """Is the nearest line starting with ``[`` in the 4,000 characters before ``at`` a ``[section]`` (an ini file,
    not code)?"""
    lo = max(0, at - 4000)
    start = text.rfind("\n[", lo, at)
    if start >= 0:
        start += 1
    elif lo == 0 and text.startswith("["):
        start = 0
    else:
        return False
    end = text.find("\n", start)
    return _INI_SECTION.fullmatch(text[start : end if end >= 0 else len(text)]) is not None


def _line_before(text: str, at: int) -> str:
    """The text of ``at``'s line before it."""
    return text[text.rfind("\n", 0, at) + 1 : at]


def _ends_line(text: str, at: int) -> bool:
    """Only spaces, a comment or the end of the line (or text) after ``at``?"""
    end = text.find("\n", at)
    rest = text[at : len(text) if end < 0 else end].strip()
    return not rest or rest.startswith("#")


def _literal_context(text: str, key_start: int, m: re.Match[str]) -> bool:
    """Can only a literal stand after this key (see the module docstring), rather than code?"""
    sep = m.group("sep")
    stripped = sep.strip()
    before = _line_before(text, key_start)
    if stripped in ("", ">"):
        return True  # --password value, <password>value
    if before.rstrip()[-1:] in ("(", ","):
        return False  # a keyword argument or an object's field: login(user, password=pw), {a: 1, token: t}
    if before.rstrip()[-1:] in (";", "&", "?"):
        return True  # Server=…;Password=…;  ?user=app&password=…
    if stripped == "=":
        if sep == "=":
            return True  # DB_PASSWORD=x, password=x: a shell, an env file, a query, a flag
        key = text[key_start : m.start()].rstrip("\"' ")
        at_line_start = before.strip() in ("", "export", "set")
        return at_line_start and (key.isupper() or _in_ini_section(text, key_start))  # PASSWORD = x; [db] password = x
    if stripped == ":":
        return before.strip() in ("", "-") and sep.startswith(":")  # a YAML line: password: x
    return False


def secret_field_kind(key: object, value: object) -> str | None:
    """The kind when ``{key: value}`` is a credential field such as ``{"password": "hunter2"}``, else None."""
    if not isinstance(key, str) or not _SECRET_FIELD.fullmatch(key):
        return None
    if isinstance(value, str):
        secret = quoted_is_secret(value) and not value.startswith(MARKER_PREFIX)
    else:
        secret = isinstance(value, int) and not isinstance(value, bool) and len(str(value)) > 8
    return _kind_for_key(key) if secret else None
