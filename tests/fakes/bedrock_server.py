"""``FakeBedrockServer``: Amazon Bedrock's runtime API for Claude on 127.0.0.1, speaking Bedrock's own wire.

``POST /model/{model id}/invoke-with-response-stream`` answers with AWS event-stream binary frames (each frame: a
prelude of total and header lengths with its CRC32, typed headers, a JSON payload ``{"bytes": <base64 of one
Messages API event>}``, and the message's CRC32), a stream error as an ``exception`` frame; ``POST /model/{model
id}/invoke`` answers with the message as JSON; errors are Amazon's ``{"message": ...}`` with ``x-amzn-ErrorType``.
The body is the Messages API's without ``model`` and ``stream`` and with ``anthropic_version``.

Every request's SigV4 signature is verified as Bedrock verifies it — the credential scope (access key, date,
region, ``bedrock``), the signed headers, the canonical request recomputed from what arrived, the signature from
the test secret — and a bad one gets Amazon's 403. ``rec.auth`` says what came: ``sigv4``, ``bearer`` (a Bedrock
API key) or ``none`` (unsigned: refused unless ``accept_unsigned``, as a gateway in front of Bedrock would accept
it). Scripted steps and faults are ``FakeAnthropicServer``'s (``tests/fakes/README.md``)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import struct
import zlib
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from tests.fakes.anthropic_server import FakeAnthropicServer, RecordedRequest, Step, _Handler

ACCESS_KEY = "AKIDCATCODETEST"
SECRET_KEY = "catcode-test-secret-key"
STREAM_PATH = re.compile(r"^/model/(?P<model>[^/]+)/(?P<action>invoke|invoke-with-response-stream)$")
AUTHORIZATION = re.compile(
    r"^AWS4-HMAC-SHA256 Credential=(?P<key>[^/]+)/(?P<date>\d{8})/(?P<region>[^/]+)/(?P<service>[^/]+)/aws4_request, "
    r"SignedHeaders=(?P<signed>[a-z0-9;-]+), Signature=(?P<signature>[0-9a-f]{64})$"
)
ERRORS = {
    400: "ValidationException",
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    408: "ModelTimeoutException",
    429: "ThrottlingException",
    500: "InternalServerException",
    503: "ServiceUnavailableException",
    529: "ServiceUnavailableException",
}
"""An HTTP status → Amazon's error name (``x-amzn-ErrorType``)."""
STREAM_EXCEPTIONS = {
    "rate_limit_error": "throttlingException",
    "overloaded_error": "serviceUnavailableException",
    "api_error": "internalServerException",
}
"""The Messages API error of a scripted ``error_midstream`` → the exception frame Bedrock sends for it."""


def aws_environment(folder: Path) -> dict[str, str]:
    """The variables of a machine whose only AWS credentials are the test keys: no profile files (they would be
    ``folder``'s, which has none), no instance metadata lookups."""
    return {
        "AWS_ACCESS_KEY_ID": ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": str(folder / "aws-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(folder / "aws-credentials"),
    }


def frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One AWS event-stream message: prelude (total length, headers length, their CRC32), string-typed headers,
    the payload, and the CRC32 of everything before it."""
    encoded = b""
    for name, value in headers.items():
        key, data = name.encode(), value.encode()
        encoded += bytes([len(key)]) + key + b"\x07" + struct.pack(">H", len(data)) + data
    prelude = struct.pack(">II", 12 + len(encoded) + len(payload) + 4, len(encoded))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + encoded + payload
    return message + struct.pack(">I", zlib.crc32(message))


def chunk_frame(event: dict[str, Any]) -> bytes:
    """A ``chunk`` event carrying one Messages API event as base64 JSON (with Bedrock's padding field)."""
    data = base64.b64encode(json.dumps(event).encode()).decode()
    payload = json.dumps({"bytes": data, "p": "abcdefghijklmnopqrstuvwxyz"[: 1 + len(data) % 26]}).encode()
    return frame({":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}, payload)


def exception_frame(kind: str, message: str) -> bytes:
    """An ``exception`` message: how Bedrock ends a stream that failed."""
    headers = {":exception-type": kind, ":content-type": "application/json", ":message-type": "exception"}
    return frame(headers, json.dumps({"message": message}).encode())


def sigv4_problem(
    h: _Handler, *, access_key: str, secret_key: str, regions: tuple[str, ...], session_token: str | None
) -> str | None:
    """Why Bedrock (in one of ``regions``) would reject this request's SigV4 signature (None: valid)."""
    match = AUTHORIZATION.match(h.headers.get("authorization", ""))
    if match is None:
        return "Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters"
    if match["key"] != access_key:
        return "The security token included in the request is invalid."
    amz_date, region = h.headers.get("x-amz-date", ""), match["region"]
    if amz_date[:8] != match["date"] or region not in regions or match["service"] != "bedrock":
        return f"Credential should be scoped to a valid region and service: {match['region']}/{match['service']}"
    if session_token is not None and h.headers.get("x-amz-security-token") != session_token:
        return "The security token included in the request is invalid."
    signed = match["signed"].split(";")
    if "host" not in signed or "x-amz-date" not in signed or signed != sorted(signed):
        return "Signed headers must be sorted and include host and x-amz-date"
    lines = [f"{name}:{','.join(' '.join(v.split()) for v in h.headers.get_all(name) or [])}" for name in signed]
    path, body_hash = quote(h.path.split("?")[0], safe="/~"), hashlib.sha256(h.raw_body).hexdigest()
    canonical = "\n".join(["POST", path, "", "\n".join(lines) + "\n", match["signed"], body_hash])
    scope = f"{match['date']}/{region}/bedrock/aws4_request"
    to_sign = f"AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
    key = f"AWS4{secret_key}".encode()
    for part in (match["date"], region, "bedrock", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    expected = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, match["signature"]):
        return "The request signature we calculated does not match the signature you provided."
    return None


class FakeBedrockServer(FakeAnthropicServer):
    """A scripted Bedrock runtime on 127.0.0.1 that checks SigV4 against ``access_key``/``secret_key`` for any of
    ``regions`` (``rec.route["region"]``: the one a request was signed for); ``base_url`` is what
    ``ANTHROPIC_BEDROCK_BASE_URL`` takes."""

    def __init__(
        self,
        *,
        regions: tuple[str, ...] = ("us-east-1",),
        access_key: str = ACCESS_KEY,
        secret_key: str = SECRET_KEY,
        session_token: str | None = None,
        accept_unsigned: bool = False,
    ) -> None:
        super().__init__()
        self.regions = regions
        self.access_key, self.secret_key, self.session_token = access_key, secret_key, session_token
        self.accept_unsigned = accept_unsigned

    def _messages_body(self, h: _Handler, rec: RecordedRequest) -> dict[str, Any] | None:
        match = STREAM_PATH.match(rec.path)
        if match is None or not isinstance(rec.body, dict):
            return None
        rec.route = {name: unquote(value) for name, value in match.groupdict().items()}
        return {**rec.body, "model": unquote(match["model"]), "stream": match["action"] != "invoke"}

    def _refusal(self, h: _Handler, rec: RecordedRequest) -> tuple[int, str, str] | None:
        authorization = h.headers.get("authorization", "")
        if authorization.startswith("Bearer "):
            rec.auth = "bearer"
        elif authorization:
            problem = sigv4_problem(
                h,
                access_key=self.access_key,
                secret_key=self.secret_key,
                regions=self.regions,
                session_token=self.session_token,
            )
            if problem is not None:
                rec.auth = "invalid"
                return 403, "permission_error", problem
            rec.auth, rec.route["region"] = "sigv4", authorization.split("/")[2]
        else:
            rec.auth = "none"
            if not self.accept_unsigned:
                return 403, "permission_error", "Missing Authentication Token"
        for name in ("model", "stream"):
            if name in rec.body:
                return 400, "invalid_request_error", f"extraneous key [{name}] is not permitted"
        if not rec.body.get("anthropic_version"):
            return 400, "invalid_request_error", "required key [anthropic_version] not found"
        return None

    def _send_error(
        self, h: _Handler, code: int, error_type: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        kind = "AccessDeniedException" if code == 403 else ERRORS.get(code, "InternalServerException")
        amazon = {"x-amzn-ErrorType": f"{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"}
        h.send_json(code, {"message": message}, {**amazon, **(headers or {})})

    def _start_stream(self, h: _Handler) -> None:
        h.start_sse("application/vnd.amazon.eventstream")

    def _event(self, h: _Handler, event: str, data: dict[str, Any]) -> None:
        if event == "message_stop":  # Bedrock adds its metrics to the last event
            data = {**data, "amazon-bedrock-invocationMetrics": {"invocationLatency": 1, "firstByteLatency": 1}}
        h.chunk(chunk_frame(data))

    def _stream_error(self, h: _Handler, step: Step) -> None:
        h.chunk(exception_frame(STREAM_EXCEPTIONS.get(step.error_type, "modelStreamErrorException"), step.message))
