"""The Bedrock and Vertex fakes speak their platforms' wire as the real parsers read it: botocore decodes the
event-stream frames (and refuses one whose CRC32 is wrong), the SDK's own signing passes the SigV4 check and a
tampered request does not, Google's auth library gets a token for a service account key, and the SDK's
non-streaming calls (``/invoke``, ``:rawPredict``) are answered."""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Iterator
from pathlib import Path

import anthropic
import httpx2
import pytest
from botocore.eventstream import ChecksumMismatch, EventStreamBuffer

from tests.fakes import text
from tests.fakes.bedrock_server import (
    ACCESS_KEY,
    SECRET_KEY,
    FakeBedrockServer,
    aws_environment,
    chunk_frame,
    exception_frame,
)
from tests.fakes.vertex_server import FakeVertexServer

HI = [{"role": "user", "content": "hi"}]


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Test credentials in the environment, nothing else of AWS (no instance metadata lookups)."""
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK", "AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    for name, value in aws_environment(tmp_path).items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def bedrock() -> Iterator[FakeBedrockServer]:
    with FakeBedrockServer() as server:
        yield server


def test_frames_decode_with_botocore_and_a_wrong_crc_is_refused() -> None:
    event = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "héllo"}}
    stream = EventStreamBuffer()
    stream.add_data(chunk_frame(event) + exception_frame("throttlingException", "Too many tokens"))
    chunk, exception = list(stream)
    assert chunk.headers == {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}
    assert json.loads(base64.b64decode(json.loads(chunk.payload)["bytes"])) == event
    assert exception.headers[":exception-type"] == "throttlingException"
    assert json.loads(exception.payload) == {"message": "Too many tokens"}
    broken = bytearray(chunk_frame(event))
    broken[-1] ^= 0xFF  # the message's CRC32
    with pytest.raises(ChecksumMismatch):
        _decode(bytes(broken))
    prelude = bytearray(chunk_frame(event))
    prelude[8:12] = struct.pack(">I", 0)  # the prelude's CRC32
    with pytest.raises(ChecksumMismatch):
        _decode(bytes(prelude))


def _decode(data: bytes) -> list[object]:
    buffer = EventStreamBuffer()
    buffer.add_data(data)
    return list(buffer)


def test_the_sdks_sigv4_signature_passes_and_both_calls_are_answered(aws: None, bedrock: FakeBedrockServer) -> None:
    client = anthropic.AnthropicBedrock(aws_region="us-east-1", base_url=bedrock.base_url, max_retries=0)
    bedrock.enqueue(text("Streamed."), text("Whole."))
    with client.messages.stream(model="us.anthropic.claude-x-v1:0", max_tokens=50, messages=HI) as stream:
        assert "".join(stream.text_stream) == "Streamed."
    reply = client.messages.create(model="us.anthropic.claude-x-v1:0", max_tokens=50, messages=HI)
    assert reply.content[0].text == "Whole."
    streamed, whole = bedrock.requests()
    assert [streamed.route["action"], whole.route["action"]] == ["invoke-with-response-stream", "invoke"]
    assert {streamed.auth, whole.auth} == {"sigv4"} and streamed.model == "us.anthropic.claude-x-v1:0"
    assert "model" not in streamed.body and streamed.body["anthropic_version"]


@pytest.mark.parametrize("tamper", ["secret", "region", "header"])
def test_a_request_signed_wrongly_is_refused_as_bedrock_refuses_it(
    aws: None, bedrock: FakeBedrockServer, tamper: str
) -> None:
    region = "eu-west-1" if tamper == "region" else "us-east-1"
    keys = {"aws_access_key": ACCESS_KEY, "aws_secret_key": "not-the-secret"} if tamper == "secret" else {}
    hooks = {"request": [_change_a_signed_header]} if tamper == "header" else {}
    client = anthropic.AnthropicBedrock(
        **keys,
        aws_region=region,
        base_url=bedrock.base_url,
        max_retries=0,
        http_client=anthropic.DefaultHttpxClient(event_hooks=hooks),
    )
    with pytest.raises(anthropic.PermissionDeniedError) as caught:
        client.messages.create(model="m", max_tokens=5, messages=HI)
    assert caught.value.response.headers["x-amzn-ErrorType"].startswith("AccessDeniedException:")
    assert bedrock.requests()[0].auth == "invalid" and bedrock.pending == 0


def _change_a_signed_header(request: httpx2.Request) -> None:
    """Change a header after the request was signed (as a proxy that rewrote it would)."""
    request.headers["x-stainless-retry-count"] = "7"


def test_a_body_other_than_the_signed_one_is_refused(aws: None, bedrock: FakeBedrockServer) -> None:
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    url = f"{bedrock.base_url}/model/m/invoke"
    signed = {"anthropic_version": "v", "max_tokens": 5, "messages": HI}
    request = AWSRequest("POST", url, data=json.dumps(signed), headers={"content-type": "application/json"})
    SigV4Auth(Credentials(ACCESS_KEY, SECRET_KEY), "bedrock", "us-east-1").add_auth(request)
    bedrock.enqueue(text("ok"))
    sent = {**signed, "max_tokens": 6}
    headers = dict(request.headers.items())
    assert httpx2.post(url, content=json.dumps(sent), headers=headers).status_code == 403
    assert httpx2.post(url, content=json.dumps(signed), headers=headers).status_code == 200
    assert [r.auth for r in bedrock.requests()] == ["invalid", "sigv4"]


def test_an_unsigned_request_is_refused_unless_a_gateway_takes_it(aws: None) -> None:
    for accept, expected in ((False, 403), (True, 200)):
        with FakeBedrockServer(accept_unsigned=accept) as server:
            server.enqueue(text("ok"))
            answer = httpx2.post(
                f"{server.base_url}/model/m/invoke", json={"anthropic_version": "v", "max_tokens": 5, "messages": HI}
            )
            assert answer.status_code == expected and server.journal[0].auth == "none"


def test_vertex_issues_tokens_for_a_service_account_and_answers_both_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeVertexServer() as server:
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(server.credentials_file(tmp_path)))
        client = anthropic.AnthropicVertex(
            region="europe-west4", project_id="catcode-test-project", base_url=server.base_url, max_retries=0
        )
        server.enqueue(text("Streamed."), text("Whole."))
        with client.messages.stream(model="claude-x@20250101", max_tokens=50, messages=HI) as stream:
            assert "".join(stream.text_stream) == "Streamed."
        assert client.messages.create(model="claude-x@20250101", max_tokens=50, messages=HI).content[0].text == "Whole."
        streamed, whole = server.requests()
        assert streamed.route == {
            "project": "catcode-test-project",
            "region": "europe-west4",
            "model": "claude-x@20250101",
            "action": "streamRawPredict",
        }
        assert whole.route["action"] == "rawPredict" and {streamed.auth, whole.auth} == {"oauth"}
        assert [r.step for r in server.requests(path="/token")] == ["token"]


def test_vertex_refuses_a_token_it_did_not_issue_and_a_key_it_did_not_make(tmp_path: Path) -> None:
    with FakeVertexServer() as server, FakeVertexServer() as other:
        answer = httpx2.post(
            f"{server.base_url}/projects/p/locations/us-east5/publishers/anthropic/models/m:rawPredict",
            headers={"authorization": "Bearer ya29.forged"},
            json={"anthropic_version": "vertex-2023-10-16", "max_tokens": 5, "messages": HI},
        )
        assert answer.status_code == 401 and answer.json()["error"]["status"] == "UNAUTHENTICATED"
        from google.oauth2 import service_account

        info = json.loads(other.credentials_file(tmp_path).read_text())
        forged = service_account.Credentials.from_service_account_info(
            {**info, "token_uri": server.token_uri}, scopes=["https://www.googleapis.com/auth/cloud-platform"]
        )
        from google.auth.exceptions import RefreshError
        from google.auth.transport.requests import Request

        with pytest.raises(RefreshError, match="invalid JWT"):
            forged.refresh(Request())
        assert server.issued == []
