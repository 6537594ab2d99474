"""Which platform answers a session: the Claude API, Amazon Bedrock or Google Vertex AI — one line each in
``PLATFORMS``, each a folder beside this module holding its ``Platform``.

The ``provider`` setting names one; unset, Claude Code's variables choose (``CLAUDE_CODE_USE_BEDROCK=1``,
``CLAUDE_CODE_USE_VERTEX=1``), else the Claude API. Everything outside ``providers/`` that depends on the platform —
the check before the prompt, building the provider, ``catcode doctor`` and ``catcode config``, print mode's
``apiKeySource`` — asks the chosen ``Platform`` through here. Plain standard library: the check runs before the
prompt is drawn, and a platform's module imports its SDK only when a request is built."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from catcode.providers.base import LLMProvider
    from catcode.settings.config import Settings

PLATFORMS: dict[str, str] = {
    "anthropic": "catcode.providers.claude_api.platform",
    "bedrock": "catcode.providers.bedrock.platform",
    "vertex": "catcode.providers.vertex.platform",
}
"""Every platform by its ``provider`` name, and the module whose ``PLATFORM`` it is. The first is the default."""

TRUTHY = frozenset({"1", "true", "yes", "on"})
"""How Claude Code reads a switch variable such as ``CLAUDE_CODE_USE_BEDROCK`` (any case)."""


class Platform(Protocol):
    """A service that answers Claude requests, as the rest of catcode sees it."""

    name: str
    """Its ``provider`` setting: ``anthropic``, ``bedrock``, ``vertex``."""
    title: str
    """As people name it: "Claude API", "Amazon Bedrock"."""
    switch: str | None
    """Claude Code's variable that chooses it when ``provider`` is unset (``CLAUDE_CODE_USE_BEDROCK``)."""

    def check(self, env: Mapping[str, str]) -> None:
        """Raise ``MissingApiKeyError`` (one line; exit 2) when nothing can be reached: no key or endpoint, or a
        library the platform needs is not installed. Cheap: it runs before the prompt is drawn."""
        ...

    def key_source(self, env: Mapping[str, str]) -> str:
        """Print mode's ``apiKeySource``: ``ANTHROPIC_API_KEY`` when one is used, else ``none``."""
        ...

    def describe(self, settings: Settings, env: Mapping[str, str]) -> list[str]:
        """Where requests go, how they are authenticated and the model ids sent, for ``catcode doctor`` and
        ``catcode config`` (credentials are named, never shown)."""
        ...

    def build(self, settings: Settings, env: Mapping[str, str], on_retry: Callable[[str], None] | None) -> LLMProvider:
        """The provider for a session; ``MissingApiKeyError`` when nothing can be reached."""
        ...


def is_on(env: Mapping[str, str], name: str) -> bool:
    """Is the switch variable ``name`` set to a true value (``1``, ``true``, ``yes``, ``on``)?"""
    return env.get(name, "").strip().lower() in TRUTHY


def platform(name: str) -> Platform:
    """The platform called ``name`` (a ``provider`` value)."""
    platform: Platform = import_module(PLATFORMS[name]).PLATFORM
    return platform


def chosen(setting: str | None, env: Mapping[str, str]) -> Platform:
    """The platform of a session: the ``provider`` setting, else the first whose switch variable is on (Bedrock
    before Vertex, as Claude Code checks them), else the Claude API."""
    if setting is not None:
        return platform(setting)
    default, *others = PLATFORMS
    for name in others:
        candidate = platform(name)
        if candidate.switch is not None and is_on(env, candidate.switch):
            return candidate
    return platform(default)


def report(settings: Settings, env: Mapping[str, str]) -> list[str]:
    """What ``catcode doctor`` and ``catcode config`` say about the platform in use: its name and why it was chosen,
    ``describe``'s lines, and a ``problem:`` line when it cannot be reached (no key, a library missing)."""
    from catcode.errors import MissingApiKeyError

    platform = chosen(settings.provider, env)
    if settings.provider is not None:
        why = "the provider setting"
    else:
        why = f"{platform.switch}={env[platform.switch]}" if platform.switch else "the default"
    lines = [f"provider: {platform.title} ({why})", *(f"  {line}" for line in platform.describe(settings, env))]
    try:
        platform.check(env)
    except MissingApiKeyError as exc:
        return [*lines, f"  problem: {exc}"]
    return lines
