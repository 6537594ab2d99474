"""``BedrockTarget``: Amazon Bedrock as the SDK carrier (``sdk_client.py``) reaches it.

One ``anthropic.AnthropicBedrock`` per region (Haiku-class models may live in
``ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION``); requests signed with SigV4 from the AWS credential chain, or carrying
``AWS_BEARER_TOKEN_BEDROCK``, or nothing at all when auth is skipped (a gateway signs them). A Claude API model name
becomes Bedrock's cross-region inference profile id for the region (``claude-sonnet-4-5-20250929`` in us-east-1 →
``us.anthropic.claude-sonnet-4-5-20250929-v1:0``); Bedrock ids, profile ids and ARNs are sent as given. Bedrock's
stream exceptions are reported as the Messages API errors they stand for, so a throttled stream reads as the Claude
API's does; credentials that cannot be found are one line, not a traceback."""

from __future__ import annotations

import re
from typing import Any

from catcode.providers.bedrock.options import DEFAULT_REGION, MISSING, BedrockOptions, endpoint
from catcode.providers.failures import ApiFailure, ApiStatusFailure, CredentialsFailure, Hints

# Any: the SDK's Bedrock client, and the third-party errors it raises.

HINTS = Hints(
    credentials="your AWS credentials (AWS_PROFILE, AWS_ACCESS_KEY_ID, AWS_BEARER_TOKEN_BEDROCK)",
    endpoint="AWS_REGION or ANTHROPIC_BEDROCK_BASE_URL",
)
STREAM_ERRORS = {
    "throttlingException": "rate_limit_error",
    "serviceUnavailableException": "overloaded_error",
    "internalServerException": "api_error",
    "modelStreamErrorException": "api_error",
}
"""Bedrock's exceptions within a stream → the Messages API error each stands for (others keep their name)."""
GEOGRAPHIES = (("us-gov-", "us-gov"), ("us-", "us"), ("ca-", "us"), ("eu-", "eu"), ("ap-", "apac"))
"""Region prefix → the cross-region inference profile prefix of its geography (anything else: ``global``)."""
_DATED = re.compile(r"-\d{8}$")
NO_CREDENTIALS = (
    "No AWS credentials for Amazon Bedrock ({cause}) — run aws configure or aws sso login, set AWS_PROFILE or "
    "AWS_ACCESS_KEY_ID, or AWS_BEARER_TOKEN_BEDROCK"
)
UNSIGNED = "catcode-unsigned"
"""Stands for a bearer token when auth is skipped: it keeps the SDK from signing, and never leaves the process."""


def model_id(model: str, region: str) -> str:
    """Bedrock's id of ``model`` in ``region``: a Claude API name becomes the geography's inference profile id."""
    if not model.startswith("claude-"):
        return model
    geography = next((geo for prefix, geo in GEOGRAPHIES if region.startswith(prefix)), "global")
    return f"{geography}.anthropic.{model}{'-v1:0' if _DATED.search(model) else ''}"


def resolved_region(options: BedrockOptions) -> str:
    """The region: the options', else the AWS profile's (boto3 reads ``~/.aws/config``), else us-east-1."""
    if options.region:
        return options.region
    import boto3

    return boto3.Session(profile_name=options.profile).region_name or DEFAULT_REGION


class BedrockTarget:
    """Amazon Bedrock for ``SdkClient``."""

    hints = HINTS

    def __init__(self, options: BedrockOptions, *, timeout: float) -> None:
        self.options = options
        self._timeout = timeout
        self._region: str | None = options.region
        self._clients: dict[str, Any] = {}

    @property
    def region(self) -> str:
        """The region of the conversation's requests."""
        if self._region is None:
            self._region = resolved_region(self.options)
        return self._region

    @property
    def where(self) -> str:
        """The endpoint failure lines name."""
        return self.options.base_url or endpoint(self._region or DEFAULT_REGION)

    def region_for(self, model: str) -> str:
        """Haiku-class models go to ``ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION`` when it is set."""
        from catcode.providers.pricing import claude_api_name

        if self.options.small_fast_region and "haiku" in claude_api_name(model):
            return self.options.small_fast_region
        return self.region

    def model_id(self, model: str) -> str:
        """Bedrock's id of ``model`` in the region it is sent to."""
        return model_id(model, self.region_for(model))

    def client(self, model: str) -> Any:
        """The ``AnthropicBedrock`` of ``model``'s region."""
        region = self.region_for(model)
        if region not in self._clients:
            self._clients[region] = self._new(region)
        return self._clients[region]

    def _new(self, region: str) -> Any:
        import anthropic

        from catcode.providers.sdk_client import sdk_options, without_credentials

        kwargs = sdk_options(self._timeout)
        kwargs["aws_region"] = region
        if self.options.base_url:
            kwargs["base_url"] = self.options.base_url
        if self.options.skip_auth:
            kwargs["api_key"] = UNSIGNED
            kwargs["http_client"] = without_credentials()
        elif self.options.bearer_token:
            kwargs["api_key"] = self.options.bearer_token
        elif self.options.profile:
            kwargs["aws_profile"] = self.options.profile
        return anthropic.AnthropicBedrock(**kwargs)

    def failure(self, err: Exception, began: bool) -> ApiFailure | None:
        """Bedrock's stream exceptions as the Messages API's errors; credentials or libraries that are missing."""
        import anthropic

        if isinstance(err, anthropic.APIStatusError):
            kind = STREAM_ERRORS.get(str(err.type))
            if not began or kind is None:
                return None
            return ApiStatusFailure(err.status_code, err.api_message or kind, error_type=kind, began=True)
        if began:
            return None
        if isinstance(err, ImportError | anthropic.AnthropicError) and "boto" in str(err):
            return CredentialsFailure(MISSING)
        try:
            from botocore.exceptions import BotoCoreError
        except ImportError:
            return CredentialsFailure(MISSING)
        if isinstance(err, BotoCoreError | RuntimeError):  # the SDK's "Could not resolve AWS credentials"
            return CredentialsFailure(NO_CREDENTIALS.format(cause=str(err).rstrip(".") or type(err).__name__))
        return None
