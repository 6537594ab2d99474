"""Amazon Bedrock as a ``Platform``: the check before the prompt (the ``bedrock`` extra is installed), what
``catcode doctor`` says about it, and the provider. Plain standard library until a provider is built."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib.util import find_spec
from typing import TYPE_CHECKING

from catcode.errors import MissingApiKeyError
from catcode.providers.bedrock.options import DEFAULT_REGION, LIBRARIES, MISSING, SWITCH, BedrockOptions, endpoint

if TYPE_CHECKING:
    from catcode.providers.base import LLMProvider
    from catcode.settings.config import Settings


class BedrockPlatform:
    """The ``Platform`` of Amazon Bedrock (``providers/registry.py``)."""

    name = "bedrock"
    title = "Amazon Bedrock"
    switch = SWITCH

    def check(self, env: Mapping[str, str]) -> None:
        """The ``bedrock`` extra is installed (botocore reads Bedrock's streams; boto3 finds the credentials)."""
        if _missing():
            raise MissingApiKeyError(MISSING)

    def key_source(self, env: Mapping[str, str]) -> str:
        """Bedrock takes AWS credentials, not an Anthropic API key."""
        return "none"

    def describe(self, settings: Settings, env: Mapping[str, str]) -> list[str]:
        """Region, endpoint, credentials and the model ids sent."""
        from catcode.providers.bedrock.target import model_id, resolved_region
        from catcode.providers.model_choice import conversation_model

        options = BedrockOptions.of(settings.bedrock, env)
        region = resolved_region(options) if not _missing() else options.region or DEFAULT_REGION
        model = conversation_model(settings, env)
        wire = model_id(model, region)
        return [
            f"region: {region} ({options.region_from})",
            f"endpoint: {options.base_url or endpoint(region)}"
            + (" (ANTHROPIC_BEDROCK_BASE_URL, bedrock.base_url)" if options.base_url else ""),
            f"credentials: {options.credentials(env)}",
            f"model: {wire}" + (f" (for {model})" if wire != model else ""),
        ]

    def build(self, settings: Settings, env: Mapping[str, str], on_retry: Callable[[str], None] | None) -> LLMProvider:
        """The ``AnthropicProvider`` over ``anthropic.AnthropicBedrock``."""
        from catcode.providers.anthropic import AnthropicProvider
        from catcode.providers.bedrock.target import BedrockTarget
        from catcode.providers.sdk_client import SdkClient

        self.check(env)
        target = BedrockTarget(BedrockOptions.of(settings.bedrock, env), timeout=settings.request_timeout)
        return AnthropicProvider.for_session(settings, env, on_retry, carrier=SdkClient(target))


def _missing() -> bool:
    """Is a library of the ``bedrock`` extra missing?"""
    return any(find_spec(library) is None for library in LIBRARIES)


PLATFORM = BedrockPlatform()
