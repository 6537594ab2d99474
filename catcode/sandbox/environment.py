"""The environment a fenced command gets: the person's, without the variables that look secret — by their name
(``ANTHROPIC_API_KEY``, ``*_TOKEN``, ``*_SECRET``, ``*PASSWORD*``, ``*_KEY``, ``AWS_*``...) or by their value (a
token of a known vendor's shape, a URL with a password in it) — unless ``sandbox.env`` passes them by name. An ssh
or gpg agent's socket counts as a secret too: it signs and decrypts with the person's keys.

Codex's ``shell_environment_policy`` is the model (its default drops names containing KEY, SECRET or TOKEN); the
patterns here are narrower about KEY (``TOKENIZERS_PARALLELISM`` and ``KEYTIMEOUT`` stay) and wider about
passwords, credentials and cloud CLIs."""

from __future__ import annotations

import fnmatch
import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from catcode.redact import Redactor

SECRET_NAMES = (
    "*_KEY", "*_KEYS", "*APIKEY", "*TOKEN", "*TOKENS", "*SECRET", "*SECRETS", "*SECRET_*", "*PASSWORD*",
    "*PASSWD*", "*PASSPHRASE*", "*_PWD", "*_PASS", "*CREDENTIAL", "*CREDENTIALS", "*_AUTH", "*_DSN",
    "*CONNECTION_STRING", "*COOKIE", "AWS_*", "SSH_AUTH_SOCK", "GPG_AGENT_INFO",
)  # fmt: skip
"""Names (compared upper-case) whose value is kept out of the fence."""


def secret_name(name: str) -> bool:
    """Does the variable's name say it holds a secret?"""
    upper = name.upper()
    return any(fnmatch.fnmatchcase(upper, pattern) for pattern in SECRET_NAMES)


@functools.cache
def _redactor() -> Redactor:
    from catcode.redact import Redactor

    return Redactor(generic_params=None)  # known shapes only: a long random-looking value is not dropped by guess


@functools.lru_cache(maxsize=512)
def _looks_secret(name: str, value: str) -> bool:
    return secret_name(name) or bool(_redactor().redact(value)[1])


def passed(name: str, names: list[str]) -> bool:
    """Does ``sandbox.env`` pass ``name`` (exactly, or by a ``*`` pattern)?"""
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in names)


def withheld(env: Mapping[str, str], names: list[str]) -> list[str]:
    """The variables of ``env`` kept out of the fence (``names``: what ``sandbox.env`` passes), sorted."""
    return sorted(name for name, value in env.items() if _looks_secret(name, value) and not passed(name, names))


def fenced_environment(env: Mapping[str, str], names: list[str]) -> dict[str, str]:
    """``env`` without the variables ``withheld`` names."""
    kept = set(withheld(env, names))
    return {name: value for name, value in env.items() if name not in kept}
