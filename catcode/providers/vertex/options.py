"""Google Vertex AI's options: the ``vertex:`` settings over Claude Code's variables, read into one place, and the
names of those variables. Plain standard library."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from catcode.settings.providers import VertexSettings

SWITCH = "CLAUDE_CODE_USE_VERTEX"
SKIP_AUTH = "CLAUDE_CODE_SKIP_VERTEX_AUTH"
DEFAULT_REGION = "us-east5"
PROJECT_VARIABLES = ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "ANTHROPIC_VERTEX_PROJECT_ID")
"""Where the project comes from when ``vertex.project_id`` is unset, first found wins (else the credentials')."""
REGION_PREFIX = "VERTEX_REGION_CLAUDE_"
MISSING = "Google Vertex AI needs google-auth: pip install 'catcode[vertex]' (scripts/install.sh installs it)"


@dataclass(frozen=True)
class VertexOptions:
    """Where Vertex requests go and how they are authenticated; each value from the ``vertex:`` settings, else from
    Claude Code's variables."""

    region: str
    region_from: str
    project_id: str | None
    project_from: str
    base_url: str | None
    skip_auth: bool
    model_regions: dict[str, str] = field(default_factory=dict)
    """The ``VERTEX_REGION_CLAUDE_*`` variables that are set: the region of single models."""

    @classmethod
    def of(cls, settings: VertexSettings, env: Mapping[str, str]) -> VertexOptions:
        """The options of these settings and variables."""
        from catcode.providers.registry import is_on

        region, region_from = settings.region, "vertex.region"
        if region is None:
            region, region_from = (
                (env["CLOUD_ML_REGION"], "CLOUD_ML_REGION")
                if env.get("CLOUD_ML_REGION")
                else (
                    DEFAULT_REGION,
                    "the default",
                )
            )
        project, project_from = settings.project_id, "vertex.project_id"
        for name in PROJECT_VARIABLES:
            if project is None and env.get(name):
                project, project_from = env[name], name
        return cls(
            region=region,
            region_from=region_from,
            project_id=project,
            project_from=project_from if project else "the credentials",
            base_url=settings.base_url or env.get("ANTHROPIC_VERTEX_BASE_URL") or None,
            skip_auth=settings.skip_auth if settings.skip_auth is not None else is_on(env, SKIP_AUTH),
            model_regions={name: value for name, value in env.items() if name.startswith(REGION_PREFIX) and value},
        )
