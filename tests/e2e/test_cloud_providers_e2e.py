"""The real ``catcode`` binary on Amazon Bedrock and Google Vertex AI, set up with Claude Code's variables only (no
Anthropic key), against fakes of each platform: ``-p`` answers (after a retried 429), cost and ``apiKeySource`` in
its JSON, a fault's one line and exit code as on the Claude API, ``catcode doctor`` and ``catcode config`` naming
the provider, and an interactive session over Bedrock."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import Catcode
from tests.fakes import error_midstream, status, text
from tests.fakes.bedrock_server import ACCESS_KEY, SECRET_KEY, FakeBedrockServer, aws_environment
from tests.fakes.vertex_server import FakeVertexServer, google_environment
from tests.in_process import run_catcode

OWN = ("ANTHROPIC_", "CATCODE_", "CLAUDE_CODE_", "AWS_", "GOOGLE_", "GCLOUD_", "CLOUDSDK_", "CLOUD_ML_", "VERTEX_")


@pytest.fixture(params=["bedrock", "vertex"])
def cloud(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[object, dict[str, str]]]:
    """A fake of the platform, and the variables a Claude Code user of it has set."""
    isolated = {**aws_environment(tmp_path), **google_environment(tmp_path)}
    if request.param == "bedrock":
        with FakeBedrockServer(regions=("eu-west-1",)) as bedrock:
            yield (
                bedrock,
                {
                    **isolated,
                    "CLAUDE_CODE_USE_BEDROCK": "1",
                    "AWS_REGION": "eu-west-1",
                    "ANTHROPIC_BEDROCK_BASE_URL": bedrock.base_url,
                },
            )
    else:
        with FakeVertexServer() as vertex:
            yield (
                vertex,
                {
                    **isolated,
                    "CLAUDE_CODE_USE_VERTEX": "1",
                    "CLOUD_ML_REGION": "us-east5",
                    "ANTHROPIC_VERTEX_PROJECT_ID": "my-project",
                    "ANTHROPIC_VERTEX_BASE_URL": vertex.base_url,
                    "GOOGLE_APPLICATION_CREDENTIALS": str(vertex.credentials_file(tmp_path)),
                },
            )


def run(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``catcode *args`` with only ``env`` of the variables that could choose or reach a platform."""
    home = project.parent / "home"
    base = {k: v for k, v in os.environ.items() if not k.startswith(OWN)}
    base.update(HOME=str(home), CATCODE_HOME=str(home / ".cat-code"), CATCODE_MAX_RETRIES="1")
    base.update(CATCODE_MEMORY_ENABLED="false", **env)
    return run_catcode(args, env=base, cwd=project)


def test_print_mode_answers_after_a_retried_429_with_cost_and_no_api_key(
    project: Path, cloud: tuple[FakeBedrockServer | FakeVertexServer, dict[str, str]]
) -> None:
    server, env = cloud
    server.enqueue(status(429), text("Hello from the cloud."))
    proc = run(project, env, "-p", "hi", "--output-format", "stream-json", "--verbose")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    init, result = events[0], events[-1]
    assert init["subtype"] == "init" and init["apiKeySource"] == "none"
    assert result["result"] == "Hello from the cloud." and not result["is_error"] and result["total_cost_usd"] > 0
    assert [r.status for r in server.requests()] == [429, 200]
    assert {r.auth for r in server.requests()} == ({"sigv4"} if isinstance(server, FakeBedrockServer) else {"oauth"})


@pytest.mark.parametrize(
    ("steps", "line"),
    [
        ([status(529), status(529)], "catcode: overloaded, retrying in 2 ms (attempt 1/1)\n"
         "catcode: API overloaded (529) after 1 retries — try again in a minute\n"),
        ([error_midstream("Half an ans")],
         "catcode: Stream failed mid-response: overloaded_error: Overloaded — try again\n"),
    ],
    ids=["overloaded", "error mid-stream"],
)  # fmt: skip
def test_a_fault_is_the_claude_apis_one_line_and_exit_code(
    project: Path, cloud: tuple[FakeBedrockServer | FakeVertexServer, dict[str, str]], steps: list, line: str
) -> None:
    server, env = cloud
    server.enqueue(*steps)
    proc = run(project, env, "-p", "hi")
    assert (proc.returncode, proc.stderr) == (1, line)
    assert server.pending == 0


def test_doctor_and_config_name_the_provider_in_use(
    project: Path, cloud: tuple[FakeBedrockServer | FakeVertexServer, dict[str, str]]
) -> None:
    server, env = cloud
    doctor = run(project, env, "doctor")
    config = run(project, env, "config")
    if isinstance(server, FakeBedrockServer):
        expected = [
            "provider: Amazon Bedrock (CLAUDE_CODE_USE_BEDROCK=1)",
            "  region: eu-west-1 (AWS_REGION)",
            f"  endpoint: {server.base_url} (ANTHROPIC_BEDROCK_BASE_URL, bedrock.base_url)",
            "  credentials: SigV4 with the AWS credential chain (AWS_ACCESS_KEY_ID)",
            "  model: eu.anthropic.claude-sonnet-5-5 (for claude-sonnet-5-5)",
        ]
    else:
        expected = [
            "provider: Google Vertex AI (CLAUDE_CODE_USE_VERTEX=1)",
            "  project: my-project (ANTHROPIC_VERTEX_PROJECT_ID)",
            "  region: us-east5 (CLOUD_ML_REGION)",
            f"  endpoint: {server.base_url} (ANTHROPIC_VERTEX_BASE_URL, vertex.base_url)",
            "  credentials: Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS)",
            "  model: claude-sonnet-5-5",
        ]
    for proc in (doctor, config):
        lines = proc.stdout.splitlines()
        start = lines.index(expected[0])
        assert lines[start : start + len(expected)] == expected, proc.stdout
    assert ACCESS_KEY not in doctor.stdout + config.stdout and SECRET_KEY not in doctor.stdout + config.stdout
    assert server.journal == []


def test_an_interactive_session_on_bedrock_needs_no_anthropic_key(
    spawn_catcode: Callable[..., Catcode], tmp_path: Path
) -> None:
    with FakeBedrockServer() as bedrock:
        bedrock.enqueue(text("Answered on Bedrock."))
        env = {
            **aws_environment(tmp_path),
            "CLAUDE_CODE_USE_BEDROCK": "1",
            "AWS_REGION": "us-east-1",
            "ANTHROPIC_BEDROCK_BASE_URL": bedrock.base_url,
        }
        app = spawn_catcode(env=env, unset=("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"))
        app.prompt()
        app.say("hi")
        app.expect_text("Answered on Bedrock.")
        app.prompt()
        assert app.exit() == 0
        (request,) = bedrock.requests()
        assert request.model == "us.anthropic.claude-sonnet-5-5" and request.auth == "sigv4"
