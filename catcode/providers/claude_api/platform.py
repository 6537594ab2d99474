"""The Claude API (``provider: anthropic``, the default): ``ANTHROPIC_API_KEY`` and ``ANTHROPIC_BASE_URL`` from the
environment; requests carried by the lean client where it covers the connection, else the SDK (``api_client``).

Checked before the interactive prompt is drawn (nothing to talk to is one line and exit 2, before any prompt) and
again where the provider is built. Plain standard library: the prompt must not wait."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from catcode.errors import MissingApiKeyError

if TYPE_CHECKING:
    from catcode.providers.base import LLMProvider
    from catcode.settings.config import Settings

MISSING_KEY = (
    "No API key. Set ANTHROPIC_API_KEY (export ANTHROPIC_API_KEY=sk-ant-...) or point ANTHROPIC_BASE_URL at an "
    "Anthropic-compatible server."
)
DEFAULT_URL = "https://api.anthropic.com"


def api_access(env: Mapping[str, str]) -> tuple[str | None, str | None]:
    """The API key and base URL (None when unset); ``MissingApiKeyError`` when neither is set."""
    api_key = env.get("ANTHROPIC_API_KEY") or None
    base_url = env.get("ANTHROPIC_BASE_URL") or None
    if not api_key and not base_url:
        raise MissingApiKeyError(MISSING_KEY)
    return api_key, base_url


class ClaudeApiPlatform:
    """The ``Platform`` of the Claude API (``providers/registry.py``)."""

    name = "anthropic"
    title = "Claude API"
    switch = None

    def check(self, env: Mapping[str, str]) -> None:
        """A key or a base URL is set."""
        api_access(env)

    def key_source(self, env: Mapping[str, str]) -> str:
        """``ANTHROPIC_API_KEY`` when it is set."""
        return "ANTHROPIC_API_KEY" if env.get("ANTHROPIC_API_KEY") else "none"

    def describe(self, settings: Settings, env: Mapping[str, str]) -> list[str]:
        """The endpoint, the key's variable and the model."""
        from catcode.providers.model_choice import conversation_model

        url = env.get("ANTHROPIC_BASE_URL")
        if env.get("ANTHROPIC_API_KEY"):
            key = "ANTHROPIC_API_KEY"
        else:
            key = "none (a server at ANTHROPIC_BASE_URL)" if url else "none — set ANTHROPIC_API_KEY"
        return [
            f"endpoint: {url} (ANTHROPIC_BASE_URL)" if url else f"endpoint: {DEFAULT_URL}",
            f"credentials: {key}",
            f"model: {conversation_model(settings, env)}",
            f"carried by: {'the SDK (api_client: sdk)' if settings.api_client == 'sdk' else 'the lean client'}",
        ]

    def build(self, settings: Settings, env: Mapping[str, str], on_retry: Callable[[str], None] | None) -> LLMProvider:
        """The ``AnthropicProvider`` over the lean client or the SDK."""
        from catcode.providers.anthropic import AnthropicProvider

        api_key, base_url = api_access(env)
        return AnthropicProvider.for_session(
            settings, env, on_retry, api_key=api_key, base_url=base_url, api_client=settings.api_client
        )


PLATFORM = ClaudeApiPlatform()
