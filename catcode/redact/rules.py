"""The redaction rule table: what counts as a secret, and what merely looks like one.

``RULES`` detects real-shaped credentials (private keys, JWTs, provider API keys, tokens in URLs and headers,
webhook URLs, "my password is X" and "密码是 X"); ``PREFIX_FAMILIES`` the many vendor tokens recognised by their
prefix (``npm_``, ``hf_``, ``SG.``…, from the published rule sets of gitleaks and detect-secrets);
``KEY_ANCHORS``/``FLAG_ANCHOR`` with ``assignment_span`` find the value of ``key = value``, ``key: "value"``,
``--key value`` and ``<key>value`` under a secret-named key; ``secret_field_kind`` does the same for JSON fields.
The rules favour precision on ordinary developer text (git SHAs, digests, UUIDs, code such as
``token = get_token()``, prose about passwords) while catching real-shaped secrets. ``redactor.py`` applies them.

Speed: CPython's regex engine only skips through a megabyte at C speed when a pattern starts with a literal; a
case-insensitive or alternation-led pattern costs tens of milliseconds. So every pattern starts with a literal,
and case-insensitive keywords are found by literal *anchors* on a lowercased copy of the text, the full
pattern being matched only at those positions. Vendor tokens share three scans: one per separator (``_``, ``-``,
``.``) followed by a long run, the prefix before it being looked up only there — one scan per prefix would cost
half a millisecond per megabyte each.

The module is a rule table and longer than most: splitting one table across files would hide what counts as a
secret.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "FLAG_ANCHOR", "KEY_ANCHORS", "MARKER_PREFIX", "PREFIX_FAMILIES", "RULES", "PrefixFamily", "Rule",
    "assignment_span", "secret_field_kind",
]  # fmt: skip

MARKER_PREFIX = "[REDACTED:"

# Key names whose value is a secret. The keyword must END the key name: `max_tokens` and `token_count` are not keys.
# The `<word>key` names are detect-secrets' keyword list (AccountKey is Azure's storage connection string).
_KEY_WORDS = r"(?:api|access|private|priv|auth|secret|account|app|client|service|master|encryption|signing|db)"
_SECRET_KEY = (
    r"(?:passw(?:or)?d|pass_?phrase|passcode|pwd|token|secret|" + _KEY_WORDS + r"[_-]?key|credentials?)"
)
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
    or where ``lead`` says the match starts. A ``wide`` rule looks for non-ASCII text (Chinese keywords): it runs on
    the original text, and only when that holds non-ASCII characters."""

    kind: str
    pattern: re.Pattern[str]
    group: int | str = 0
    accept: Callable[[re.Match[str]], str | None] | None = None
    anchor: re.Pattern[str] | None = None
    lead: Callable[[str, int], int] | None = None
    wide: bool = False


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


# A value stated in prose: a quoted text, or a run of printable ASCII whose rest holds only closing punctuation
# ("is hunter2." ends at the 2; "!" and "?" stay in: they are as likely the password's last character).
_PROSE_VALUE = (
    r"(?P<open>[\"'`])?(?P<v>(?(open)[^\"'`\n]{1,200}?(?=(?P=open))|[!-~]+?(?=[.,;:)\]}>'\"]*(?![!-~]))))"
)
# 密码是 X, 密码为 X, 密码：X, 密码是：X
_CJK_TAIL = r"(?:(?:是|为)[ \t\u3000]*[：:]?|[：:=])[ \t\u3000]*" + _PROSE_VALUE
_NUMBERS = re.compile(r"[\d.,:/\u2013-]+")  # 8, 8-64, 3.3, 12:30: sizes and ranges, not secrets
_STANDARD = re.compile(r"[A-Z]{2,6}-?\d{1,4}(?:\.\d+)?")  # AES-256, SHA1, UTF-8, TLS1.3: names, not secrets


def _stated_secret(m: re.Match[str]) -> str | None:
    """``password`` when the value of "my password is X" looks chosen rather than a word: quoted, or with a digit
    or symbol, or letters of mixed case; never a number, a range, a standard's name, a kebab-case word, a path, a
    placeholder or a marker."""
    value = m.group("v")
    if m.group("open"):
        return "password" if _quoted_is_secret(value) and not value.startswith(MARKER_PREFIX) else None
    if value.startswith(MARKER_PREFIX) or _PLACEHOLDER.fullmatch(value) or _NUMBERS.fullmatch(value):
        return None
    if _KEBAB.fullmatch(value) or _PATH.fullmatch(value) or _STANDARD.fullmatch(value) or "=" in value:
        return None  # case-sensitive, /etc/shadow, AES-256, password=...: a word, a path, a name or a key
    if value.isalpha() and (value[1:].islower() or value.isupper()):
        return None
    return "password"


def _lead_over(chars: str) -> Callable[[str, int], int]:
    """A ``lead`` that walks back from the anchor over ``chars`` (where a token starts before its marker)."""

    def lead(text: str, i: int) -> int:
        start = i
        while start > 0 and i - start < 64 and text[start - 1] in chars:
            start -= 1
        return start

    return lead


_DIGITS = "0123456789"
_WEBHOOK_KINDS = {"slack.com": "slack_webhook", "discord": "discord_webhook", "office.com": "teams_webhook"}


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
    _rule("slack_token", r"x(?<![\w-]x)(?:ox[abeoprs](?:\.xox[bp])?-[A-Za-z0-9-]{10,}|app-\d-[A-Za-z0-9-]{10,})"),
    _rule(
        "webhook",  # whoever has the URL can post as you: Slack, Discord and Teams incoming webhooks
        r"http(?<![\w.-]http)s?://(?:hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}"
        r"|(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w-]{20,}"
        r"|[\w-]+\.webhook\.office\.com/webhookb2/[\w@-]{20,}/IncomingWebhook/[\w/-]{20,})",
        accept=lambda m: _WEBHOOK_KINDS[next(host for host in _WEBHOOK_KINDS if host in m.group())],
    ),
    _rule("azure_sas_signature", r"sig=(?<=[?&;]sig=)(?P<v>[A-Za-z0-9%/+]{30,}={0,2})", group="v"),
    _rule(
        "azure_client_secret",
        r"[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
        r"q~",
        lead=lambda _text, i: i - 4,
    ),
    _rule(
        "telegram_bot_token",
        r"(?<![\w:])\d{8,10}:AA[A-Za-z0-9_-]{33}(?![\w-])",
        r":aa",
        lead=_lead_over(_DIGITS),
    ),
    _rule("mailchimp_key", r"(?<![\w-])[0-9a-f]{32}-us\d{1,2}(?!\w)", r"-us\d", lead=lambda _text, i: i - 32),
    _rule("twilio_key", r"SK(?<![\w-]SK)[0-9a-fA-F]{32}(?![\w-])"),
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
    _rule(
        "password",  # .netrc: machine example.com login alice password s3cret (on one line or several)
        r"(?i)(?<![\w-])password[ \t]+" + _PROSE_VALUE,
        r"password[ \t]",
        group="v",
        accept=lambda m: _stated_secret(m) if "machine " in m.string[max(0, m.start() - 300) : m.start()] else None,
    ),
    _rule(
        "password",  # my password is hunter2; the root passphrase was "…"
        r"(?i)pass(?:w(?:or)?d|phrase|code)[ \t]+(?:is|was)[ \t]*:?[ \t]+" + _PROSE_VALUE,
        r"pass(?:w(?:or)?d|phrase|code)[ \t]+(?:is|was)[ \t:]",  # "is X" and "is: X"
        group="v",
        accept=_stated_secret,
    ),
    *(  # 数据库密码是 hunter2, 密码：hunter2, 令牌为 …: one literal-led rule per word (an alternation is 10x slower)
        _rule("password", word + _CJK_TAIL, group="v", accept=_stated_secret, wide=True)
        for word in ("密码", "口令", "密钥", "令牌")
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


# Vendor tokens known by their prefix: (prefix ending in its separator, kind, what follows the prefix). Taken from
# the published rules of gitleaks (config/gitleaks.toml) and detect-secrets (detect_secrets/plugins); the formats
# with a rule of their own above (sk-, ghp_, glpat-, xoxb-, AIza, sk_live_, AKIA) are not repeated here.
_TOKENS: tuple[tuple[str, str, str], ...] = (
    ("npm_", "npm_token", r"[A-Za-z0-9]{36}"),
    ("hf_", "huggingface_token", r"[A-Za-z0-9]{30,40}"),
    ("api_org_", "huggingface_token", r"[A-Za-z]{34}"),
    ("SG.", "sendgrid_key", r"[\w-]{22}\.[\w-]{43}"),
    ("glptt-", "gitlab_token", r"[0-9a-f]{40}"),
    *((p, "gitlab_token", r"[\w-]{20,}") for p in ("gldt-", "glrt-", "glft-", "glsoat-", "glffct-", "glimt-")),
    ("gloas-", "gitlab_token", r"[\w-]{64}"),
    ("glagent-", "gitlab_token", r"[\w-]{50,}"),
    *((p, "digitalocean_token", r"[a-f0-9]{64}") for p in ("dop_v1_", "doo_v1_", "dor_v1_")),
    *((p, "shopify_token", r"[a-fA-F0-9]{32}") for p in ("shpat_", "shpca_", "shppa_", "shpss_")),
    ("pypi-", "pypi_token", r"AgE[\w-]{50,}"),
    ("xkeysib-", "sendinblue_key", r"[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    ("sntryu_", "sentry_token", r"[a-f0-9]{64}"),
    ("pnu_", "prefect_token", r"[A-Za-z0-9]{36}"),
    ("pul-", "pulumi_token", r"[a-f0-9]{40}"),
    ("rubygems_", "rubygems_token", r"[a-f0-9]{48}"),
    ("lin_api_", "linear_key", r"[A-Za-z0-9]{40}"),
    ("PMAK-", "postman_key", r"[a-fA-F0-9]{24}-[a-fA-F0-9]{34}"),
    *((p, "planetscale_token", r"[\w=.-]{32,64}") for p in ("pscale_tkn_", "pscale_oauth_", "pscale_pw_")),
    ("ntn_", "notion_token", r"\d{11}[A-Za-z0-9]{35}"),
    ("secret_", "notion_token", r"[A-Za-z0-9]{43}"),
    ("pplx-", "perplexity_key", r"[A-Za-z0-9]{48}"),
    ("sq0atp-", "square_token", r"[\w-]{22,60}"),
    ("sq0csp-", "square_token", r"[\w-]{43}"),
    ("EAAA", "square_token", r"[\w-]{60}"),
    ("tk-us-", "scalingo_token", r"[\w-]{48}"),
    ("fio-u-", "frameio_token", r"[\w=-]{64}"),
    ("ico-", "infracost_token", r"[A-Za-z0-9]{32}"),
    ("dt0c01.", "dynatrace_token", r"[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}"),
    ("hvs.", "vault_token", r"[\w-]{90,120}"),
    ("hvb.", "vault_token", r"[\w-]{138,300}"),
    ("glc_", "grafana_token", r"[A-Za-z0-9+/]{32,400}={0,3}"),
    ("glsa_", "grafana_token", r"[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"),
    ("rdme_", "readme_token", r"[a-z0-9]{70}"),
    *((p, "duffel_token", r"[\w=-]{43}") for p in ("duffel_test_", "duffel_live_")),
    *((p, "shippo_token", r"[a-fA-F0-9]{40}") for p in ("shippo_live_", "shippo_test_")),
    ("FLWSECK_TEST-", "flutterwave_key", r"[a-h0-9]{32}-X"),
    ("HRKU-", "heroku_key", r"AA[\w-]{58}"),
    ("AGE-SECRET-KEY-", "age_secret_key", r"1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    ("ops_", "onepassword_token", r"eyJ[A-Za-z0-9+/]{250,}={0,3}"),
    ("GOCSPX-", "google_oauth_secret", r"[\w-]{28}"),
    ("ya29.", "google_oauth_token", r"[\w-]{30,}"),
    ("key-", "mailgun_key", r"[a-f0-9]{32}"),
    ("dapi", "databricks_token", r"[a-f0-9]{32}(?:-\d)?"),
)
# What must follow a separator before the prefix in front of it is looked up: a run long enough that ordinary
# snake_case and kebab-case words rarely get that far, of the characters token bodies are made of (not starting
# with another "-": a line of dashes is not a token; a body that starts with its separator's twin is found from
# that second character, see ``_families``).
_RUN_AHEAD = {"_": r"[A-Za-z0-9+/=.-][\w+/=.-]{9}", "-": r"[A-Za-z0-9_=][\w=-]{9}", ".": r"[\w-]{16}"}


@dataclass(frozen=True)
class PrefixFamily:
    """The vendor tokens whose prefix ends in one separator: ``anchor`` finds the separator where a long run
    follows, ``prefix`` (searched in the few characters before it, ending at it) names the token, and
    ``bodies[prefix]`` is its kind and the pattern of what follows the prefix."""

    anchor: re.Pattern[str]
    prefix: re.Pattern[str]
    bodies: dict[str, tuple[str, str]]  # the pattern's source: compiled by ``body`` when its prefix first shows up
    reach: int  # the longest prefix: how far before the separator to look
    _compiled: dict[str, tuple[str, re.Pattern[str]]] = field(default_factory=dict, compare=False, repr=False)

    def body(self, prefix: str) -> tuple[str, re.Pattern[str]]:
        """The kind and compiled body pattern of the token ``prefix`` names. Compiled on first use: most text holds
        no vendor token, and compiling all ~60 bodies up front cost the first request (and every start) ~10 ms."""
        found = self._compiled.get(prefix)
        if found is None:  # two threads may both compile it: the same pattern, harmless
            kind, source = self.bodies[prefix]
            found = self._compiled[prefix] = (kind, re.compile(source))
        return found


def _families(tokens: tuple[tuple[str, str, str], ...]) -> tuple[PrefixFamily, ...]:
    """Group ``tokens`` by the separator their prefix ends in (prefixes ending in a letter, like ``dapi``, are
    plain rules). The prefix pattern also accepts one more ``_``/``-`` after the prefix: a body that starts with
    one is found from the anchor at that character."""
    families = []
    for sep, ahead in _RUN_AHEAD.items():
        members = {prefix: (kind, body) for prefix, kind, body in tokens if prefix.endswith(sep)}
        names = "|".join(re.escape(p) for p in sorted(members, key=len, reverse=True))
        families.append(
            PrefixFamily(
                anchor=re.compile(re.escape(sep) + f"(?={ahead})"),
                prefix=re.compile(rf"(?<![A-Za-z0-9_.-])({names})[_-]?\Z"),
                bodies={p: (k, b + r"(?![A-Za-z0-9])") for p, (k, b) in members.items()},
                reach=max(map(len, members)) + 1,
            )
        )
    return tuple(families)


PREFIX_FAMILIES = _families(_TOKENS)
# Prefixes that end in a letter (EAAA, dapi) are rules of their own: a literal-led pattern each.
RULES += tuple(
    _rule(kind, f"{re.escape(prefix)}(?<![\\w-]{re.escape(prefix)}){body}(?![A-Za-z0-9])")
    for prefix, kind, body in _TOKENS
    if prefix[-1] not in _RUN_AHEAD
)


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
