"""Which Anthropic API a session talks to: ``ANTHROPIC_API_KEY`` and ``ANTHROPIC_BASE_URL`` from the environment.

Checked before the interactive prompt is drawn (nothing to talk to is one line and exit 2, before any prompt) and
again where the provider is built (``app.make_provider``). Plain standard library: the prompt must not wait."""

from __future__ import annotations

from collections.abc import Mapping

from catcode.errors import MissingApiKeyError

MISSING_KEY = (
    "No API key. Set ANTHROPIC_API_KEY (export ANTHROPIC_API_KEY=sk-ant-...) or point ANTHROPIC_BASE_URL at an "
    "Anthropic-compatible server."
)


def api_access(env: Mapping[str, str]) -> tuple[str | None, str | None]:
    """The API key and base URL (None when unset); ``MissingApiKeyError`` when neither is set."""
    api_key = env.get("ANTHROPIC_API_KEY") or None
    base_url = env.get("ANTHROPIC_BASE_URL") or None
    if not api_key and not base_url:
        raise MissingApiKeyError(MISSING_KEY)
    return api_key, base_url
