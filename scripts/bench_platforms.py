"""``catcode -p`` on each platform against its local fake: wall time to the first byte of the answer and to exit,
medians, as ratios to the Claude API (the lean client) in the same run — what going through Bedrock's or Vertex's
SDK client (the SDK's import, boto3's or google-auth's, SigV4 signing or an OAuth token) costs a one-shot run.
The quality traded is none: the same answer must come back on each (checked every run)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, "") and str(Path(__file__).resolve().parents[1]) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

from tests.fakes import FakeAnthropicServer, text
from tests.fakes.bedrock_server import FakeBedrockServer, aws_environment
from tests.fakes.vertex_server import FakeVertexServer, google_environment

CATCODE = str(Path(sys.executable).parent / "catcode")
ANSWER = "The answer streams here."
OWN = ("ANTHROPIC_", "CATCODE_", "CLAUDE_CODE_", "AWS_", "GOOGLE_", "CLOUDSDK_", "CLOUD_ML_", "VERTEX_")


def _once(project: Path, env: dict[str, str], server: FakeAnthropicServer) -> tuple[float, float]:
    server.enqueue(text(ANSWER))
    started = time.perf_counter()
    proc = subprocess.Popen(
        [CATCODE, "-p", "hi"], cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdout is not None
    proc.stdout.read(1)
    first = time.perf_counter() - started
    rest, _ = proc.communicate()
    assert rest.decode().startswith(ANSWER[1:]) and proc.returncode == 0, "a platform answered differently"
    return first * 1000, (time.perf_counter() - started) * 1000


def bench_platforms(runs: int = 5) -> dict[str, float]:
    """Median ms to first byte and to exit per platform, and ratios to the Claude API's."""
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        base = {k: v for k, v in os.environ.items() if not k.startswith(OWN)}
        base.update(
            HOME=str(root / "home"),
            CATCODE_HOME=str(root / "home" / ".cat-code"),
            CATCODE_MEMORY_ENABLED="false",
            **google_environment(root),
        )
        with FakeAnthropicServer() as claude, FakeBedrockServer() as bedrock, FakeVertexServer() as vertex:
            platforms = {
                "claude api": (claude, {"ANTHROPIC_BASE_URL": claude.base_url, "ANTHROPIC_API_KEY": "bench"}),
                "claude api (sdk)": (
                    claude,
                    {"ANTHROPIC_BASE_URL": claude.base_url, "ANTHROPIC_API_KEY": "bench", "CATCODE_API_CLIENT": "sdk"},
                ),
                "bedrock": (
                    bedrock,
                    {
                        "CLAUDE_CODE_USE_BEDROCK": "1",
                        "AWS_REGION": "us-east-1",
                        **aws_environment(root),
                        "ANTHROPIC_BEDROCK_BASE_URL": bedrock.base_url,
                    },
                ),
                "vertex": (
                    vertex,
                    {
                        "CLAUDE_CODE_USE_VERTEX": "1",
                        "CLOUD_ML_REGION": "us-east5",
                        "ANTHROPIC_VERTEX_PROJECT_ID": "bench",
                        "ANTHROPIC_VERTEX_BASE_URL": vertex.base_url,
                        "GOOGLE_APPLICATION_CREDENTIALS": str(vertex.credentials_file(root)),
                    },
                ),
            }
            samples: dict[str, list[tuple[float, float]]] = {name: [] for name in platforms}
            for _ in range(runs):  # interleaved, so that a busy moment of the machine falls on every platform
                for name, (server, extra) in platforms.items():
                    samples[name].append(_once(project, {**base, **extra}, server))
    for name, pairs in samples.items():
        results[f"{name}: first byte ms"] = statistics.median(first for first, _ in pairs)
        results[f"{name}: exit ms"] = statistics.median(total for _, total in pairs)
    for name in samples:
        if name != "claude api":
            results[f"{name}: first byte / claude api"] = (
                results[f"{name}: first byte ms"] / results["claude api: first byte ms"]
            )
    return results


if __name__ == "__main__":
    for key, value in bench_platforms().items():
        print(f"{key:45} {value:10.2f}")
