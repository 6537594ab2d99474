"""Google Vertex AI as a ``Platform``: the check before the prompt (the ``vertex`` extra is installed), what
``catcode doctor`` says about it, and the provider. Plain standard library until a provider is built."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib.util import find_spec
from typing import TYPE_CHECKING

from catcode.errors import MissingApiKeyError
from catcode.providers.vertex.options import MISSING, SKIP_AUTH, SWITCH, VertexOptions

if TYPE_CHECKING:
    from catcode.providers.base import LLMProvider
    from catcode.settings.config import Settings


class VertexPlatform:
    """The ``Platform`` of Google Vertex AI (``providers/registry.py``)."""

    name = "vertex"
    title = "Google Vertex AI"
    switch = SWITCH

    def check(self, env: Mapping[str, str]) -> None:
        """The ``vertex`` extra is installed (google-auth finds the credentials)."""
        if find_spec("google") is None or find_spec("google.auth") is None:
            raise MissingApiKeyError(MISSING)

    def key_source(self, env: Mapping[str, str]) -> str:
        """Vertex takes Google Cloud credentials, not an Anthropic API key."""
        return "none"

    def describe(self, settings: Settings, env: Mapping[str, str]) -> list[str]:
        """Project, region, endpoint, credentials and the model ids sent."""
        from catcode.providers.model_choice import conversation_model
        from catcode.providers.vertex.target import endpoint, model_id, region_for

        options = VertexOptions.of(settings.vertex, env)
        model = conversation_model(settings, env)
        region = region_for(model, options)
        wire = model_id(model)
        if options.skip_auth:
            credentials = f"none: requests go without Google credentials ({SKIP_AUTH}, vertex.skip_auth)"
        else:
            credentials = "Application Default Credentials" + (
                " (GOOGLE_APPLICATION_CREDENTIALS)" if env.get("GOOGLE_APPLICATION_CREDENTIALS") else ""
            )
        return [
            f"project: {options.project_id or 'from the credentials'} ({options.project_from})",
            f"region: {region} ({options.region_from if region == options.region else 'VERTEX_REGION_CLAUDE_*'})",
            f"endpoint: {options.base_url or endpoint(region)}"
            + (" (ANTHROPIC_VERTEX_BASE_URL, vertex.base_url)" if options.base_url else ""),
            f"credentials: {credentials}",
            f"model: {wire}" + (f" (for {model})" if wire != model else ""),
        ]

    def build(self, settings: Settings, env: Mapping[str, str], on_retry: Callable[[str], None] | None) -> LLMProvider:
        """The ``AnthropicProvider`` over ``anthropic.AnthropicVertex``."""
        from catcode.providers.anthropic import AnthropicProvider
        from catcode.providers.sdk_client import SdkClient
        from catcode.providers.vertex.target import VertexTarget

        self.check(env)
        target = VertexTarget(VertexOptions.of(settings.vertex, env), timeout=settings.request_timeout)
        return AnthropicProvider.for_session(settings, env, on_retry, carrier=SdkClient(target))


PLATFORM = VertexPlatform()
