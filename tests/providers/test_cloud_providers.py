"""Claude on Amazon Bedrock and Google Vertex AI, built as a session builds its provider (``make_provider`` with
Claude Code's variables), against fakes of each platform over real HTTP with the SDK's real signing: streaming,
the model id each platform knows, credentials (SigV4, a profile with a session token, a Bedrock API key, a service
account, none for a gateway), per-model regions, cost, and every fault worded as the Claude API words it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from catcode.app.build import make_provider
from catcode.conversation.messages import Message
from catcode.errors import ProviderError
from catcode.providers.anthropic import AnthropicProvider
from catcode.providers.base import ChatOptions, LLMProvider
from catcode.providers.pricing import cost_of
from catcode.settings.config import Settings
from tests.fakes import FakeAnthropicServer, Step, error_midstream, status, text
from tests.fakes.bedrock_server import ACCESS_KEY, SECRET_KEY, FakeBedrockServer, aws_environment
from tests.fakes.vertex_server import FakeVertexServer, google_environment

FAULTS = {
    "rate limited, then answered": [status(429), text("Recovered.")],
    "overloaded": [status(529), status(529)],
    "server error": [status(500, "Internal server error"), status(500, "Internal server error")],
    "error mid-stream": [error_midstream("Half an ans")],
}


@pytest.fixture(autouse=True)
def clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Test AWS keys in the environment and nothing else of either cloud: no profile, no instance metadata."""
    for name in (
        "AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK", "AWS_REGION", "AWS_DEFAULT_REGION",
        "GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT",
    ):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    for name, value in {**aws_environment(tmp_path), **google_environment(tmp_path)}.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def bedrock() -> Iterator[FakeBedrockServer]:
    with FakeBedrockServer(regions=("eu-west-1", "us-west-2")) as server:
        yield server


@pytest.fixture
def vertex(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeVertexServer]:
    with FakeVertexServer() as server:
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(server.credentials_file(tmp_path)))
        yield server


def on_bedrock(server: FakeBedrockServer, **env: str) -> dict[str, str]:
    return {
        "CLAUDE_CODE_USE_BEDROCK": "1",
        "AWS_REGION": "eu-west-1",
        "ANTHROPIC_BEDROCK_BASE_URL": server.base_url,
        **env,
    }


def on_vertex(server: FakeVertexServer, **env: str) -> dict[str, str]:
    return {
        "CLAUDE_CODE_USE_VERTEX": "1",
        "CLOUD_ML_REGION": "us-east5",
        "ANTHROPIC_VERTEX_PROJECT_ID": "my-project",
        "ANTHROPIC_VERTEX_BASE_URL": server.base_url,
        **env,
    }


def ask(provider: LLMProvider, purpose: str = "chat") -> tuple[str, list[str]]:
    deltas: list[str] = []
    reply = provider.chat([Message.user("hi")], "You help.", [], ChatOptions(purpose=purpose), on_text=deltas.append)
    return reply.text, deltas


def test_bedrock_streams_signed_requests_for_the_regions_model_id_and_prices_them(bedrock: FakeBedrockServer) -> None:
    provider = make_provider(Settings(), on_bedrock(bedrock))
    bedrock.enqueue(text("Hello from Bedrock, streamed in pieces."))
    answer, deltas = ask(provider)
    assert answer == "Hello from Bedrock, streamed in pieces." and len(deltas) > 1
    (request,) = bedrock.requests()
    assert request.route == {"model": "eu.anthropic.claude-sonnet-5-5", "action": "invoke-with-response-stream"} | {
        "region": "eu-west-1"
    }
    assert request.auth == "sigv4" and request.body["system"][0]["cache_control"] == {"type": "ephemeral"}
    total, unpriced = cost_of(provider.usage_by_model)  # type: ignore[attr-defined]
    assert unpriced == [] and total is not None and total > 0


def test_a_profiles_credentials_with_a_session_token_sign_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "aws-credentials").write_text(
        f"[work]\naws_access_key_id = {ACCESS_KEY}\naws_secret_access_key = {SECRET_KEY}\n"
        "aws_session_token = catcode-session-token\n"
    )
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    with FakeBedrockServer(regions=("eu-west-1",), session_token="catcode-session-token") as server:
        settings = Settings.model_validate({"bedrock": {"profile": "work"}})
        server.enqueue(text("Signed with a profile."))
        assert ask(make_provider(settings, on_bedrock(server)))[0] == "Signed with a profile."
        assert server.requests()[0].auth == "sigv4"


def test_a_bedrock_api_key_is_sent_as_a_bearer_token_and_skipping_auth_sends_nothing(
    bedrock: FakeBedrockServer,
) -> None:
    bedrock.enqueue(text("With a key."))
    ask(make_provider(Settings(), on_bedrock(bedrock, AWS_BEARER_TOKEN_BEDROCK="bedrock-api-key")))
    with FakeBedrockServer(accept_unsigned=True) as gateway:
        gateway.enqueue(text("Through a gateway."))
        provider = make_provider(Settings(), on_bedrock(gateway, CLAUDE_CODE_SKIP_BEDROCK_AUTH="1"))
        assert ask(provider)[0] == "Through a gateway."
        (unsigned,) = gateway.requests()
    (keyed,) = bedrock.requests()
    assert keyed.auth == "bearer" and set(keyed.credentials) == {"authorization"}
    assert unsigned.auth == "none" and unsigned.credentials == {} and "x-amz-date" not in unsigned.headers


def test_haiku_class_work_goes_to_its_own_region(bedrock: FakeBedrockServer) -> None:
    settings = Settings.model_validate({"memory": {"model": "haiku"}})
    env = on_bedrock(bedrock, ANTHROPIC_SMALL_FAST_MODEL_AWS_REGION="us-west-2")
    bedrock.enqueue(text("Memory work."), text("Conversation."))
    provider = make_provider(settings, env)
    ask(provider, purpose="memory")
    ask(provider)
    memory, chat = bedrock.requests()
    assert memory.route["region"] == "us-west-2" and memory.model.startswith("us.anthropic.claude-haiku-")
    assert chat.route["region"] == "eu-west-1" and chat.model == "eu.anthropic.claude-sonnet-5-5"


def test_vertex_streams_with_a_service_account_token_for_its_model_id(vertex: FakeVertexServer) -> None:
    provider = make_provider(Settings(model="claude-sonnet-4-5-20250929"), on_vertex(vertex))
    vertex.enqueue(text("Hello from Vertex, streamed in pieces."))
    answer, deltas = ask(provider)
    assert answer == "Hello from Vertex, streamed in pieces." and len(deltas) > 1
    (request,) = vertex.requests()
    assert request.route == {
        "project": "my-project",
        "region": "us-east5",
        "model": "claude-sonnet-4-5@20250929",
        "action": "streamRawPredict",
    }
    assert request.auth == "oauth" and vertex.issued
    total, unpriced = cost_of(provider.usage_by_model)  # type: ignore[attr-defined]
    assert unpriced == [] and total is not None and total > 0


def test_vertex_takes_the_credentials_project_and_a_models_own_region(vertex: FakeVertexServer) -> None:
    env = on_vertex(vertex, CLOUD_ML_REGION="global", VERTEX_REGION_CLAUDE_HAIKU_4_5="europe-west1")
    del env["ANTHROPIC_VERTEX_PROJECT_ID"]
    provider = make_provider(Settings.model_validate({"memory": {"model": "claude-haiku-4-5-20251001"}}), env)
    vertex.enqueue(text("Memory work."), text("Conversation."))
    ask(provider, purpose="memory")
    ask(provider)
    memory, chat = vertex.requests()
    assert (memory.route["project"], memory.route["region"]) == ("catcode-test-project", "europe-west1")
    assert memory.model == "claude-haiku-4-5@20251001"
    assert (chat.route["region"], chat.model) == ("global", "claude-sonnet-5-5")


def test_skipping_vertex_auth_sends_no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeVertexServer(accept_unauthenticated=True) as gateway:
        gateway.enqueue(text("Through a gateway."))
        provider = make_provider(Settings(), on_vertex(gateway, CLAUDE_CODE_SKIP_VERTEX_AUTH="true"))
        assert ask(provider)[0] == "Through a gateway."
        (request,) = gateway.requests()
        assert request.auth == "none" and request.credentials == {} and gateway.requests(path="/token") == []


def first_party_line(steps: list[Step]) -> str:
    """What the Claude API's provider says after the same answers (or its reply)."""
    with FakeAnthropicServer() as server:
        server.enqueue(*steps)
        return outcome(AnthropicProvider("claude-sonnet-5-5", api_key="k", base_url=server.base_url, max_retries=1))


def outcome(provider: LLMProvider) -> str:
    try:
        return ask(provider)[0]
    except ProviderError as exc:
        return f"error: {exc}"


@pytest.mark.parametrize("fault", FAULTS)
def test_bedrock_faults_read_as_the_claude_apis(bedrock: FakeBedrockServer, fault: str) -> None:
    bedrock.enqueue(*FAULTS[fault])
    seen = outcome(make_provider(Settings(max_retries=1), on_bedrock(bedrock)))
    assert seen == first_party_line(FAULTS[fault]) and bedrock.pending == 0


@pytest.mark.parametrize("fault", FAULTS)
def test_vertex_faults_read_as_the_claude_apis(vertex: FakeVertexServer, fault: str) -> None:
    vertex.enqueue(*FAULTS[fault])
    seen = outcome(make_provider(Settings(max_retries=1), on_vertex(vertex)))
    assert seen == first_party_line(FAULTS[fault]) and vertex.pending == 0


def test_missing_credentials_are_one_line_and_nothing_is_sent(
    bedrock: FakeBedrockServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings.model_validate({"bedrock": {"profile": "nobody"}})
    with pytest.raises(ProviderError) as aws:
        ask(make_provider(settings, on_bedrock(bedrock)))
    assert str(aws.value).startswith("No AWS credentials for Amazon Bedrock (") and aws.value.status == 401
    assert "\n" not in str(aws.value) and bedrock.journal == []
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "missing.json"))
    with FakeVertexServer() as vertex:
        with pytest.raises(ProviderError) as google:
            ask(make_provider(Settings(), on_vertex(vertex)))
        assert str(google.value).startswith("No Google Cloud credentials for Vertex AI (") and vertex.journal == []
        assert google.value.status == 401 and "\n" not in str(google.value)
