"""Vendor tokens known by their prefix (``npm_``, ``hf_``, ``SG.``, ``hvs.``…), from the published rule sets of
gitleaks (config/gitleaks.toml) and detect-secrets (detect_secrets/plugins).

Speed: one scan per prefix would cost half a millisecond per megabyte each. So the tokens share three scans,
``PREFIX_FAMILIES``: one per separator (``_``, ``-``, ``.``) followed by a long run, the prefix before it being
looked up only there. Prefixes that end in a letter (``EAAA``, ``dapi``) cannot share a scan:
``LETTER_PREFIXED`` lists them for the rule table (``rules.py``) to make a literal-led rule of each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["LETTER_PREFIXED", "PREFIX_FAMILIES", "PrefixFamily"]

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
    ("hvs.", "vault_token", r"[\w-]{24,120}"),  # a dev server's root token is hvs. and 24 characters
    ("hvb.", "vault_token", r"[\w-]{100,300}"),
    ("hvr.", "vault_token", r"[\w-]{24,120}"),
    ("ATATT3", "atlassian_token", r"[\w=-]{50,300}"),
    ("ATCTT3", "atlassian_token", r"[\w=-]{50,300}"),
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


LETTER_PREFIXED: tuple[tuple[str, str, str], ...] = tuple(t for t in _TOKENS if t[0][-1] not in _RUN_AHEAD)
"""The (prefix, kind, body) of the tokens whose prefix ends in a letter: a rule of their own each."""
