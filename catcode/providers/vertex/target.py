"""``VertexTarget``: Google Vertex AI as the SDK carrier (``sdk_client.py``) reaches it.

One ``anthropic.AnthropicVertex`` per region: a model goes to the region its ``VERTEX_REGION_CLAUDE_*`` variable
names (both of Claude Code's spellings: ``VERTEX_REGION_CLAUDE_4_5_SONNET``, ``VERTEX_REGION_CLAUDE_HAIKU_4_5``),
else to the configured one. Requests carry an access token from Application Default Credentials, or nothing when
auth is skipped (a gateway adds its own). A dated Claude API name becomes Vertex's (``claude-sonnet-4-5-20250929`` →
``claude-sonnet-4-5@20250929``). Credentials or a project that cannot be found are one line, not a traceback."""

from __future__ import annotations

import re
from typing import Any

from catcode.providers.failures import ApiFailure, CredentialsFailure, Hints
from catcode.providers.vertex.options import MISSING, REGION_PREFIX, VertexOptions
from catcode.text import shorten

# Any: the SDK's Vertex client, and the third-party errors it raises.

HINTS = Hints(
    credentials="your Google Cloud credentials (gcloud auth application-default login)",
    endpoint="CLOUD_ML_REGION or ANTHROPIC_VERTEX_BASE_URL",
)
_DATED = re.compile(r"-(\d{8})$")
_FAMILY_FIRST = re.compile(r"^claude-(?P<family>[a-z]+)-(?P<version>\d+(?:-\d+)?)$")
_VERSION_FIRST = re.compile(r"^claude-(?P<version>\d+(?:-\d+)?)-(?P<family>[a-z]+)$")
NO_CREDENTIALS = (
    "No Google Cloud credentials for Vertex AI ({cause}) — run gcloud auth application-default login, or set "
    "GOOGLE_APPLICATION_CREDENTIALS"
)
CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
NO_PROJECT = "No Google Cloud project for Vertex AI — set ANTHROPIC_VERTEX_PROJECT_ID (or vertex.project_id)"
UNAUTHENTICATED = "catcode-unauthenticated"
"""Stands for an access token when auth is skipped: it keeps the SDK from loading credentials, and never leaves
the process."""


def model_id(model: str) -> str:
    """Vertex's id of ``model``: a dated Claude API name takes its date after ``@``."""
    return _DATED.sub(r"@\1", model) if model.startswith("claude-") and "@" not in model else model


def region_variables(model: str) -> list[str]:
    """The ``VERTEX_REGION_CLAUDE_*`` variables that may name ``model``'s region, in both of Claude Code's
    spellings (version first, as ``..._4_0_OPUS``, and family first, as ``..._HAIKU_4_5``)."""
    from catcode.providers.pricing import claude_api_name

    name = re.sub(r"-\d{8}$", "", claude_api_name(model))
    match = _FAMILY_FIRST.match(name) or _VERSION_FIRST.match(name)
    if match is None:
        return []
    family, version = match["family"].upper(), match["version"].replace("-", "_")
    versions = [version] if "_" in version else [version, f"{version}_0"]
    return [f"{REGION_PREFIX}{v}_{family}" for v in versions] + [f"{REGION_PREFIX}{family}_{v}" for v in versions]


def region_for(model: str, options: VertexOptions) -> str:
    """The region ``model``'s requests go to."""
    return next((options.model_regions[v] for v in region_variables(model) if v in options.model_regions), None) or (
        options.region
    )


def endpoint(region: str) -> str:
    """Vertex AI's endpoint for ``region`` (what the SDK uses without a base URL)."""
    if region == "global":
        return "https://aiplatform.googleapis.com/v1"
    if region in ("us", "eu"):
        return f"https://aiplatform.{region}.rep.googleapis.com/v1"
    return f"https://{region}-aiplatform.googleapis.com/v1"


class VertexTarget:
    """Google Vertex AI for ``SdkClient``."""

    hints = HINTS

    def __init__(self, options: VertexOptions, *, timeout: float) -> None:
        self.options = options
        self._timeout = timeout
        self._clients: dict[str, Any] = {}
        self.where = options.base_url or endpoint(options.region)

    def model_id(self, model: str) -> str:
        """Vertex's id of ``model``."""
        return model_id(model)

    def client(self, model: str) -> Any:
        """The ``AnthropicVertex`` of ``model``'s region."""
        region = region_for(model, self.options)
        if region not in self._clients:
            self._clients[region] = self._new(region)
        return self._clients[region]

    def _new(self, region: str) -> Any:
        import anthropic

        from catcode.providers.sdk_client import sdk_options, without_credentials

        kwargs = sdk_options(self._timeout)
        kwargs["region"] = region
        kwargs["project_id"] = self.options.project_id
        if not self.options.project_id:  # the credentials' project (the SDK wants one before it loads them)
            if self.options.skip_auth:
                raise CredentialsFailure(NO_PROJECT)
            import google.auth

            kwargs["credentials"], kwargs["project_id"] = google.auth.default(scopes=[CLOUD_PLATFORM])
            if not kwargs["project_id"]:
                raise CredentialsFailure(NO_PROJECT)
        if self.options.base_url:
            kwargs["base_url"] = self.options.base_url
        if self.options.skip_auth:
            kwargs["access_token"] = UNAUTHENTICATED
            kwargs["http_client"] = without_credentials()
        return anthropic.AnthropicVertex(**kwargs)

    def failure(self, err: Exception, began: bool) -> ApiFailure | None:
        """Credentials, a project or a library that is missing."""
        if began:
            return None
        try:
            from google.auth.exceptions import GoogleAuthError
        except ImportError:
            return CredentialsFailure(MISSING)
        if isinstance(err, GoogleAuthError):
            cause = shorten(str(err).split(". ")[0].strip().rstrip("."), 200) or type(err).__name__
            return CredentialsFailure(NO_CREDENTIALS.format(cause=cause))
        if isinstance(err, RuntimeError | ValueError) and "project" in str(err).lower():
            return CredentialsFailure(NO_PROJECT)
        return None
