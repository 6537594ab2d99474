"""Amazon Bedrock's options: the ``bedrock:`` settings over Claude Code's variables, read into one place, and the
names of those variables. Plain standard library."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from catcode.settings.providers import BedrockSettings

SWITCH = "CLAUDE_CODE_USE_BEDROCK"
SKIP_AUTH = "CLAUDE_CODE_SKIP_BEDROCK_AUTH"
BEARER = "AWS_BEARER_TOKEN_BEDROCK"
SMALL_FAST_REGION = "ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION"
DEFAULT_REGION = "us-east-1"
LIBRARIES = ("boto3", "botocore")
MISSING = "Amazon Bedrock needs boto3 and botocore: pip install 'catcode[bedrock]' (scripts/install.sh installs them)"


@dataclass(frozen=True)
class BedrockOptions:
    """Where Bedrock requests go and how they are signed; each value from the ``bedrock:`` settings, else from
    Claude Code's variables (``region`` None: the profile's region, else us-east-1, found when a client is built)."""

    region: str | None
    region_from: str
    profile: str | None
    base_url: str | None
    skip_auth: bool
    bearer_token: str | None
    small_fast_region: str | None
    """``ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION``: the region of Haiku-class models."""

    @classmethod
    def of(cls, settings: BedrockSettings, env: Mapping[str, str]) -> BedrockOptions:
        """The options of these settings and variables."""
        from catcode.providers.registry import is_on

        region, region_from = settings.region, "bedrock.region"
        for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
            if region is None and env.get(name):
                region, region_from = env[name], name
        return cls(
            region=region,
            region_from=region_from if region else "the AWS profile, else us-east-1",
            profile=settings.profile,
            base_url=settings.base_url or env.get("ANTHROPIC_BEDROCK_BASE_URL") or None,
            skip_auth=settings.skip_auth if settings.skip_auth is not None else is_on(env, SKIP_AUTH),
            bearer_token=env.get(BEARER) or None,
            small_fast_region=env.get(SMALL_FAST_REGION) or None,
        )

    def credentials(self, env: Mapping[str, str]) -> str:
        """How requests are authenticated, named (never shown)."""
        if self.skip_auth:
            return f"none: requests go unsigned ({SKIP_AUTH}, bedrock.skip_auth)"
        if self.bearer_token:
            return f"the Bedrock API key in {BEARER}"
        chain = [name for name in ("AWS_PROFILE", "AWS_ACCESS_KEY_ID") if env.get(name)]
        source = f"profile {self.profile}" if self.profile else ", ".join(chain) or "~/.aws, SSO, the instance role"
        return f"SigV4 with the AWS credential chain ({source})"


def endpoint(region: str) -> str:
    """Bedrock's runtime endpoint in ``region`` (what the SDK uses without a base URL)."""
    return f"https://bedrock-runtime.{region}.amazonaws.com"
