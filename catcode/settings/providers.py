"""``provider`` and its options: which service answers (``anthropic``, ``bedrock``, ``vertex``) and the ``bedrock:``
and ``vertex:`` sections. Every option left unset is read from the variables Claude Code documents for it, so a
Claude Code set-up works as it is; a value here wins over them. Only the person's own settings may set these (a
project's file must not choose where your requests and credentials go: ``safety/trusted_settings.py``)."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

ProviderName = Literal["anthropic", "bedrock", "vertex"]
"""The platforms of ``providers/registry.py`` (a test keeps the two equal)."""
USER_ONLY = ("provider", *get_args(ProviderName))
"""The keys only the person's own settings (user file, environment, flags) may set: the choice, and each provider's
section."""


class BedrockSettings(BaseModel):
    """Claude on Amazon Bedrock (``provider: bedrock``, or ``CLAUDE_CODE_USE_BEDROCK=1``), signed with the AWS
    credential chain (``AWS_PROFILE``, ``AWS_ACCESS_KEY_ID``..., ``~/.aws``, SSO) or ``AWS_BEARER_TOKEN_BEDROCK``."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    region: str | None = Field(None, min_length=1, max_length=500)
    """The AWS region (unset: ``AWS_REGION``, ``AWS_DEFAULT_REGION``, the profile's region, else us-east-1)."""
    profile: str | None = Field(None, min_length=1, max_length=500)
    """The AWS profile whose credentials sign the requests (unset: ``AWS_PROFILE``, else the default chain)."""
    base_url: str | None = Field(None, min_length=1, max_length=500)
    """The endpoint, e.g. an LLM gateway (unset: ``ANTHROPIC_BEDROCK_BASE_URL``, else Bedrock's in the region)."""
    skip_auth: bool | None = None
    """Send requests unsigned, for a gateway that signs them itself (unset: ``CLAUDE_CODE_SKIP_BEDROCK_AUTH``)."""


class VertexSettings(BaseModel):
    """Claude on Google Vertex AI (``provider: vertex``, or ``CLAUDE_CODE_USE_VERTEX=1``), authenticated with
    Application Default Credentials (``gcloud auth application-default login``, ``GOOGLE_APPLICATION_CREDENTIALS``)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    region: str | None = Field(None, min_length=1, max_length=500)
    """The region, or ``global`` (unset: ``CLOUD_ML_REGION``, else us-east5); ``VERTEX_REGION_CLAUDE_*`` variables
    still route single models elsewhere."""
    project_id: str | None = Field(None, min_length=1, max_length=500)
    """The Google Cloud project (unset: ``GOOGLE_CLOUD_PROJECT``, ``GCLOUD_PROJECT``, ``ANTHROPIC_VERTEX_PROJECT_ID``,
    else the credentials' project)."""
    base_url: str | None = Field(None, min_length=1, max_length=500)
    """The endpoint, e.g. an LLM gateway (unset: ``ANTHROPIC_VERTEX_BASE_URL``, else Vertex AI's for the region)."""
    skip_auth: bool | None = None
    """Send requests without Google credentials, for a gateway that adds its own (unset:
    ``CLAUDE_CODE_SKIP_VERTEX_AUTH``)."""
