"""The redaction rule table: the credentials known by their shape.

``RULES`` detects real-shaped credentials (private keys, JWTs, provider API keys, tokens in URLs and headers,
webhook URLs, "my password is X" and "密码是 X"), plus a literal-led rule per vendor prefix that ends in a letter
(``vendor_prefixes.py`` holds the rest of the vendor tokens, ``assignments.py`` the ``key = value`` rules). The
rules favour precision on ordinary developer text (git SHAs, digests, UUIDs, prose about passwords) while
catching real-shaped secrets. ``redactor.py`` applies them.

Speed: CPython's regex engine only skips through a megabyte at C speed when a pattern starts with a literal; a
case-insensitive or alternation-led pattern costs tens of milliseconds. So every pattern starts with a literal,
and case-insensitive keywords are found by literal *anchors* on a lowercased copy of the text, the full
pattern being matched only at those positions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from catcode.redact.generic import entropy
from catcode.redact.values import (
    KEBAB,
    MARKER_PREFIX,
    PATH,
    PLACEHOLDER,
    passphrase_words,
    quoted_is_secret,
    stated_word,
)
from catcode.redact.vendor_prefixes import LETTER_PREFIXED

__all__ = ["RULES", "Rule"]


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


def _if_tokenish(kind: str) -> Callable[[re.Match[str]], str | None]:
    """An ``accept`` that names ``kind`` when the value looks generated rather than an English word."""
    return lambda m: kind if _tokenish(m.group("v")) else None


def _scheme_start(text: str, i: int) -> int:
    """Start of the URL scheme ending at the ``://`` found at ``i``."""
    while i > 0 and (text[i - 1].isalnum() or text[i - 1] in "+.-"):
        i -= 1
    return i


def _rule(
    kind: str,
    pattern: str,
    anchor: str | None = None,
    *,
    group: int | str = 0,
    accept: Callable[[re.Match[str]], str | None] | None = None,
    lead: Callable[[str, int], int] | None = None,
    wide: bool = False,
) -> Rule:
    return Rule(kind, re.compile(pattern), group, accept, re.compile(anchor) if anchor else None, lead, wide)


def _openai_or_anthropic(m: re.Match[str]) -> str | None:
    if m.group().startswith("sk-ant-"):
        return "anthropic_key"
    # `sk-learn-is-not-a-secret-key` is words; a key has a long random run between separators.
    return "openai_key" if max(map(len, re.split(r"[-_]", m.group()[3:]))) >= 16 else None


# A value stated in prose: a quoted text, or a run of printable ASCII whose rest holds only closing punctuation
# ("is hunter2." ends at the 2; "!" and "?" stay in: they are as likely the password's last character).
_PROSE_VALUE = r"(?P<open>[\"'`])?(?P<v>(?(open)[^\"'`\n]{1,200}?(?=(?P=open))|[!-~]+?(?=[.,;:)\]}>'\"]*(?![!-~]))))"
# 密码是 X, 密码为 X, 密码：X, 密码是：X
_CJK_TAIL = r"(?:(?:是|为)[ \t\u3000]*[：:]?|[：:=])[ \t\u3000]*" + _PROSE_VALUE
_NUMBERS = re.compile(r"[\d.,:/\u2013-]+")  # 8, 8-64, 3.3, 12:30: sizes and ranges, not secrets
_STANDARD = re.compile(r"[A-Z]{2,6}-?\d{1,4}(?:\.\d+)?")  # AES-256, SHA1, UTF-8, TLS1.3: names, not secrets


def _stated_secret(m: re.Match[str]) -> str | None:
    """``password`` when the value of "my password is X" is a password rather than prose: quoted, or with a digit
    or symbol, or letters of mixed case, or a word of one case that ends its clause and does not describe a
    password (``values.stated_word``: "is letmeinplease" yes, "is required", "is not working" no); never a number,
    a range, a standard's name, a kebab-case word, a path, a placeholder or a marker."""
    value = m.group("v")
    if m.group("open"):
        return "password" if quoted_is_secret(value) and not value.startswith(MARKER_PREFIX) else None
    if value.startswith(MARKER_PREFIX) or PLACEHOLDER.fullmatch(value) or _NUMBERS.fullmatch(value):
        return None
    if KEBAB.fullmatch(value) or PATH.fullmatch(value) or _STANDARD.fullmatch(value) or "=" in value:
        return None  # case-sensitive, /etc/shadow, AES-256, password=...: a word, a path, a name or a key
    if value.isalpha() and (value[1:].islower() or value.isupper()):
        return "password" if stated_word(value, m.string[m.end("v") :]) else None
    return "password"


def _stated_passphrase(m: re.Match[str]) -> str | None:
    """``password`` when "the passphrase is X Y Z" states a diceware passphrase: three to eight lowercase words,
    none a word of prose, ending the clause."""
    value = m.group("v")
    return "password" if passphrase_words(value) == len(value) and not m.string[m.end("v") :][:1].isalnum() else None


def _generated(value: str) -> bool:
    """Letters and digits at random (a user name a service made, not a person's)."""
    letters, digits = sum(c.isalpha() for c in value), sum(c.isdigit() for c in value)
    return letters >= 4 and digits >= 4 and entropy(value) >= 3.0


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
    _rule(  # Doppler: dp.st.…, and a service token may carry its environment: dp.st.prd.…
        "doppler_token",
        r"dp\.(?<![\w.-]dp\.)(?:st|pt|ct|sa|scim|audit)\.(?:[a-z0-9_-]{2,35}\.)?[A-Za-z0-9]{40,44}(?![A-Za-z0-9])",
    ),
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
        r"(?<![A-Za-z0-9+.-])[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/?#:@]*:(?P<pw>[^\s/?#]+)@(?=[^\s/?#@])",
        r"://",
        group="pw",
        accept=lambda m: None if MARKER_PREFIX in m.group() else "url_password",  # nothing redacted is found again
        lead=_scheme_start,
    ),
    _rule(
        "url_token",  # https://<key>@o123.ingest.sentry.io/1, https://<token>@github.com/…: a generated user name
        r"(?<![A-Za-z0-9+.-])[a-zA-Z][a-zA-Z0-9+.-]*://(?P<v>[A-Za-z0-9_-]{20,})@(?=[^\s/?#@])",
        r"://",
        group="v",
        accept=lambda m: "url_token" if _generated(m.group("v")) else None,
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
        _rule(kind, pattern, anchor, group="v", accept=_if_tokenish(kind))
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
        "password",  # the passphrase is correct horse battery staple (before the one-word rule: the longer span)
        r"(?i)pass(?:w(?:or)?d|phrase|code)[ \t]+(?:is|was)[ \t]*:?[ \t]+"
        r"(?P<v>[a-z][a-z0-9]*(?:[ \t]+[a-z][a-z0-9]*){2,7})",
        r"pass(?:w(?:or)?d|phrase|code)[ \t]+(?:is|was)[ \t:]",
        group="v",
        accept=_stated_passphrase,
    ),
    _rule(
        "password",  # my password is hunter2; the root passphrase was "…"; the wifi password is letmeinplease
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

# Prefixes that end in a letter (EAAA, dapi) are rules of their own: a literal-led pattern each.
RULES += tuple(
    _rule(kind, f"{re.escape(prefix)}(?<![\\w-]{re.escape(prefix)}){body}(?![A-Za-z0-9])")
    for prefix, kind, body in LETTER_PREFIXED
)
