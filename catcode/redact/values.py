"""What a secret's value looks like, as opposed to a variable, a path, a placeholder or a word of prose.

Shared by the rule table (``rules.py``: "my password is X") and the key rules (``assignments.py``: ``key = X``).
A value is never a secret when it is a placeholder (``${DB_PASSWORD}``, ``<your password>``, ``****``, ``changeme``,
``REPLACE_ME``, ``your-password-here``, ``none``), a password hash (``$2b$12$…``, ``$argon2id$…``), a path, a small
number or a redaction marker (``MARKER_PREFIX``). Past that, what counts depends on where the value stands:

- in code (``token = get_token()``, ``password: str``, ``login(password=pw)``) a bare word is a variable or a type,
  so only a value that looks chosen (a digit, a symbol, mixed case) is taken (``unquoted_length``);
- where a value can only be a literal — an environment or config line (``DB_PASSWORD=letmeinplease``), a
  connection string (``;Password=…;``), a query (``&password=…``), a YAML value (``password: hunter``), a flag —
  any value that is none of the above is the secret, all-lowercase words included (``literal_length``);
- in prose ("my password is X") a word is taken when it ends the clause and is not a word that describes a
  password ("required", "hashed", "wrong"): ``stated_word``.
"""

from __future__ import annotations

import re

__all__ = [
    "KEBAB",
    "MARKER_PREFIX",
    "PATH",
    "PLACEHOLDER",
    "is_placeholder",
    "literal_length",
    "passphrase_words",
    "quoted_is_secret",
    "stated_word",
    "unquoted_length",
]

MARKER_PREFIX = "[REDACTED:"


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_EXPRESSION = re.compile(r"[A-Za-z_$][\w$.]*[(\[]")  # a call or subscript: get_token(), request.form['pw']
KEBAB = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+")
"""A kebab-case name (``db-credentials``): a resource's name, not a secret."""
PATH = re.compile(r"(?:~|\.{1,2})?/[\w./-]*|[A-Za-z]:\\.*")
"""A file path (``/etc/shadow``, ``~/.netrc``, ``C:\\keys``)."""
PLACEHOLDER = re.compile(
    r"\$\{?[\w.:-]*\}?|\$\{\{.*\}\}|\{\{.*\}\}|\{[^{}]*\}|<[^<>]*>|\([^()]*\)|\[[^\[\]]*\]|%\(?\w*\)?[sd]|%\w+%"
    r"|\*+|[xX]{3,}|\.{3}|…|\[REDACTED:\w+\].*",
    re.DOTALL,
)
"""A stand-in for a value: ``${DB_PASSWORD}``, ``{{token}}``, ``<token>``, ``(none)``, ``%s``, ``%VAR%``, ``***``,
``xxx``, a marker."""
_HASHED = re.compile(r"\$(?:2[abxy]?|argon2(?:id|i|d)|[156]|sha\d+|pbkdf2[\w-]*|scrypt|y)\$\S+|\{(?:S?SHA\d*|MD5)\}\S+")
"""A password hash (bcrypt, argon2, crypt, LDAP): what a server keeps instead of the password."""
_STAND_IN_WORDS = _words(
    "changeme changeit changethis password passwd passphrase secret token apikey key value example sample "
    "placeholder dummy fake redacted hidden masked none null nil undefined empty blank todo tbd fixme replaceme "
    "default required optional true false yes no on off string str bytes int bool any secretstr notset unset setme "
    "foo bar foobar baz pass pwd xxx na tba pending bearer basic digest"
)
"""Words that stand in for a value (compared without case, ``_`` or ``-``)."""
_STAND_IN = re.compile(
    r"(?:your|my|enter|insert|put|the|some|a)(?:api)?(?:password|passphrase|secret|token|key|pass)\w*"
)
_STRIP_TRAILING = ")]}>.,:;"
_REFERENCE = "{$%<[(!&*|>"
"""How a value that refers to another starts: ``{token}``, ``$TOKEN``, ``%s``, ``<token>``, a YAML tag, anchor,
alias or block (``!vault |``, ``&pw``, ``*pw``, ``|``)."""

# Words that say something about a password rather than being one ("the password is required"), and the function
# words of a sentence that goes on ("the password is not working"): a stated value that is one of them is prose.
_DESCRIBING = _words(
    """required optional mandatory correct incorrect wrong right invalid valid expired empty blank missing unknown known
    set unset same different new old current previous temporary permanent secure insecure weak strong long short
    simple complex easy hard random unique private public secret hidden visible sensitive insensitive case ok okay
    fine good bad great safe unsafe stale fresh null none nil true false here there below above attached enclosed
    inside elsewhere somewhere nowhere available unavailable active inactive enabled disabled locked unlocked
    compromised leaked changed reset stored saved hashed salted encrypted encoded protected managed generated
    rotated revoked shared written printed logged sent given listed shown mine yours his hers ours theirs its
    forgotten given written chosen broken stolen taken known shown lost kept left found told held made done gone
    seen put got gotten spoken frozen driven fallen risen mistaken overwritten rewritten proven drawn grown thrown
    what which who whatever something nothing anything everything this that these those it them one ones
    correctly incorrectly also still already now then again too very really just only never always not no yes"""
)
_STOP = _words(
    """a an the and or but if then so of to in on at by for from with without into onto over under about after before
    is are was were be been being am do does did has have had will would can could should must may might shall
    not no nor as than that this these those it its it's i you he she we they me him her us them my your our their
    see use using used find found check ask contact please via per each every any all some more most less least
    what which who where when why how because since until while"""
)
_WORD = re.compile(r"[a-z][a-z0-9]*")
_SUFFIXES = ("ed", "ing", "ly", "able", "ible", "ive", "ous", "ful", "less", "ary", "ory")


def is_placeholder(value: str) -> bool:
    """A stand-in, a hash, a marker: never a secret whatever holds it."""
    value = value.strip()
    if not value or PLACEHOLDER.fullmatch(value) or _HASHED.fullmatch(value):
        return True
    folded = value.lower().replace("_", "").replace("-", "").replace(" ", "")
    return folded in _STAND_IN_WORDS or bool(_STAND_IN.fullmatch(folded))


def unquoted_length(raw: str) -> int:
    """Length of the secret at the start of an unquoted value in code, or 0 when the value is not a secret."""
    if _EXPRESSION.match(raw) or raw[0] in _REFERENCE:
        return 0  # a call, subscript, interpolation, reference or marker: get_token(), {token}, $TOKEN
    value = raw.rstrip(_STRIP_TRAILING)
    if len(value) < 4 or is_placeholder(value) or PATH.fullmatch(value):
        return 0
    if value.isdigit() and len(value) <= 8:  # max_token = 4096
        return 0
    if _IDENTIFIER.fullmatch(value) and ("." in value or not any(c.isdigit() for c in value)):
        return 0  # a variable, constant, type or attribute: password = user_input, token: str, pw: self.pw
    if KEBAB.fullmatch(value):
        return 0  # a resource name: secret: db-credentials
    return len(value)


def literal_length(raw: str, *, password: bool) -> int:
    """Length of the secret at the start of an unquoted value where only a literal can stand (``DB_PASSWORD=x``):
    any value but a stand-in, a reference, a path, a small number, a dotted name (``settings.SECRET_KEY``) or,
    under a key that is not a password's, a kebab-case resource name."""
    if _EXPRESSION.match(raw) or raw[0] in _REFERENCE:
        return 0
    value = raw.rstrip(_STRIP_TRAILING)
    if len(value) < 4 or is_placeholder(value) or PATH.fullmatch(value) or (value.isdigit() and len(value) <= 8):
        return 0
    if value.lower() in _DESCRIBING:
        return 0  # password: unknown
    named = _IDENTIFIER.fullmatch(value) and not any(c.isdigit() for c in value)
    if named and ("." in value or ("_" in value.strip("_") and value.lower() != value)):
        return 0  # settings.SECRET_KEY, DEFAULT_PASSWORD: a name
    if KEBAB.fullmatch(value) and not password:
        return 0  # secret: db-credentials
    return len(value)


def quoted_is_secret(value: str) -> bool:
    """A quoted literal is a secret unless it is empty or a stand-in such as ``${DB_PASSWORD}`` or a hash."""
    return not is_placeholder(value)


def stated_word(word: str, after: str) -> bool:
    """Is ``word``, all letters of one case, a password stated in prose ("my password is letmeinplease"), given the
    text ``after`` it? Only when it ends its clause and does not describe a password ("is required", "is hashed
    with bcrypt", "is not working")."""
    lower = word.lower()
    if lower in _DESCRIBING or lower in _STOP or len(lower) < 4 or _describes(lower):
        return False
    rest = after.lstrip(" \t")
    return not rest or rest[0] in "\n.,;!?)]}\"'" or rest.startswith(("(", "—", "- "))


def _describes(word: str) -> bool:
    """A word shaped like one that describes (``hashed``, ``missing``, ``sensitive``): a short one with such an
    ending (words run together into a password are long: ``trustnoanchorivory``)."""
    return word in _DESCRIBING or (len(word) <= 12 and word.endswith(_SUFFIXES))


def passphrase_words(text: str) -> int:
    """The length of a diceware passphrase at the start of ``text`` ("correct horse battery staple"): three to eight
    lowercase words up to the end of the clause, no function word among them and at most one that could describe
    ("correct"); 0 when there is none."""
    words: list[str] = []
    at = 0
    for match in re.finditer(r"[^\s]+|\s+", text):
        piece = match.group()
        if piece.isspace():
            if "\n" in piece:
                break
            continue
        stripped = piece.rstrip(".,;!?")
        if not _WORD.fullmatch(stripped) or stripped in _STOP:
            return 0
        words.append(stripped)
        at = match.start() + len(stripped)
        if stripped != piece or len(words) > 8:
            break
    return at if 3 <= len(words) <= 8 and sum(map(_describes, words)) <= 1 else 0
