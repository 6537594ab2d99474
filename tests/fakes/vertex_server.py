"""``FakeVertexServer``: Google Vertex AI's endpoint for Claude on 127.0.0.1, speaking Vertex's own wire.

``POST /v1/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:streamRawPredict`` answers with
server-sent events as the Messages API does, ``...:rawPredict`` with the message as JSON; the body is the Messages
API's without ``model`` and with ``anthropic_version``. A 429 is Google's ``RESOURCE_EXHAUSTED`` error; other errors
are the Messages API's, as Vertex passes them on. ``base_url`` (ending in ``/v1``) is what
``ANTHROPIC_VERTEX_BASE_URL`` takes.

Requests must carry a bearer token this server issued from its OAuth endpoint (``token_uri``), else Google's 401 —
unless ``accept_unauthenticated`` (a gateway in front of Vertex). ``credentials_file`` writes a service account key
(a fresh RSA key) whose ``token_uri`` is this server's, for ``GOOGLE_APPLICATION_CREDENTIALS``: Google's auth
library then signs a JWT assertion with it, and the endpoint verifies the signature, issuer, audience and scope
before it issues a token. ``rec.auth`` says what came: ``oauth`` or ``none``;
``rec.route`` what the URL named (``project``, ``region``, ``model``, ``action``).
Scripted steps and faults are ``FakeAnthropicServer``'s."""

from __future__ import annotations

import base64
import itertools
import json
import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from tests.fakes.anthropic_server import FakeAnthropicServer, RecordedRequest, _error_body, _Handler

PREDICT_PATH = re.compile(
    r"^/v1/projects/(?P<project>[^/]+)/locations/(?P<region>[^/]+)/publishers/anthropic/models/"
    r"(?P<model>[^/:]+):(?P<action>streamRawPredict|rawPredict)$"
)
TOKEN_PATH = "/token"
JWT_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
SERVICE_ACCOUNT = "catcode-test@catcode-test-project.iam.gserviceaccount.com"
SCOPE = "https://www.googleapis.com/auth/cloud-platform"
AUDIENCE = "https://oauth2.googleapis.com/token"
"""What a service account's assertion is addressed to, whichever ``token_uri`` it is posted to."""


def google_environment(folder: Path) -> dict[str, str]:
    """The variables of a machine with no Google credentials of its own: gcloud's configuration in ``folder``
    (empty), no metadata server lookups."""
    return {"NO_GCE_CHECK": "true", "CLOUDSDK_CONFIG": str(folder / "gcloud")}


class FakeVertexServer(FakeAnthropicServer):
    """A scripted Vertex AI endpoint for Claude on 127.0.0.1, with an OAuth token endpoint of its own."""

    def __init__(self, *, accept_unauthenticated: bool = False) -> None:
        super().__init__()
        self.accept_unauthenticated = accept_unauthenticated
        self.token_uri = f"{self.base_url}{TOKEN_PATH}"
        self.base_url = f"{self.base_url}/v1"
        self.issued: list[str] = []
        """The access tokens handed out, in order."""
        self._tokens = itertools.count(1)
        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def credentials_file(self, folder: Path, project: str = "catcode-test-project") -> Path:
        """A service account key file of ``project`` whose token endpoint is this server's (0600)."""
        pem = self._key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        info = {
            "type": "service_account",
            "project_id": project,
            "private_key_id": "catcode-test-key",
            "private_key": pem.decode(),
            "client_email": SERVICE_ACCOUNT,
            "client_id": "1234567890",
            "token_uri": self.token_uri,
        }
        path = folder / "service-account.json"
        path.write_text(json.dumps(info), encoding="utf-8")
        path.chmod(0o600)
        return path

    def _assertion_problem(self, assertion: str) -> str | None:
        """Why Google would refuse this JWT assertion (None: signed by our key, for us, with the scope)."""
        try:
            head, claims, signature = (_unb64(part) for part in assertion.split("."))
            self._key.public_key().verify(
                signature, assertion.rsplit(".", 1)[0].encode(), padding.PKCS1v15(), hashes.SHA256()
            )
            header, payload = json.loads(head), json.loads(claims)
        except (ValueError, InvalidSignature) as err:
            return f"invalid JWT: {type(err).__name__}"
        if header.get("alg") != "RS256" or payload.get("iss") != SERVICE_ACCOUNT or payload.get("aud") != AUDIENCE:
            return "invalid JWT: wrong algorithm, issuer or audience"
        if SCOPE not in str(payload.get("scope", "")).split() or not payload.get("exp", 0) > time.time():
            return "invalid JWT: no cloud-platform scope, or expired"
        return None

    def _answer(self, h: _Handler, rec: RecordedRequest) -> None:
        if rec.path != TOKEN_PATH:
            return super()._answer(h, rec)
        self._record(rec)
        fields = dict(parse_qsl(h.raw_body.decode()))
        problem = "unsupported grant type" if fields.get("grant_type") != JWT_GRANT else None
        problem = problem or self._assertion_problem(fields.get("assertion", ""))
        if problem is not None:
            rec.status, rec.step = 400, "invalid"
            return h.send_json(400, {"error": "invalid_grant", "error_description": problem})
        token = f"ya29.catcode-test-{next(self._tokens)}"
        self.issued.append(token)
        rec.status, rec.step = 200, "token"
        return h.send_json(200, {"access_token": token, "expires_in": 3599, "token_type": "Bearer"})

    def _messages_body(self, h: _Handler, rec: RecordedRequest) -> dict[str, Any] | None:
        match = PREDICT_PATH.match(rec.path)
        if match is None or not isinstance(rec.body, dict):
            return None
        rec.route = {name: unquote(value) for name, value in match.groupdict().items()}
        return {**rec.body, "model": unquote(match["model"]), "stream": match["action"] == "streamRawPredict"}

    def _refusal(self, h: _Handler, rec: RecordedRequest) -> tuple[int, str, str] | None:
        authorization = h.headers.get("authorization", "")
        if authorization.removeprefix("Bearer ") in self.issued:
            rec.auth = "oauth"
        elif authorization or not self.accept_unauthenticated:
            rec.auth = "invalid" if authorization else "none"
            return 401, "authentication_error", "Request had invalid authentication credentials."
        else:
            rec.auth = "none"
        if "model" in rec.body:
            return 400, "invalid_request_error", "model: Extra inputs are not permitted"
        if not rec.body.get("anthropic_version"):
            return 400, "invalid_request_error", "anthropic_version: Field required"
        return None

    def _send_error(
        self, h: _Handler, code: int, error_type: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        google = {429: "RESOURCE_EXHAUSTED", 401: "UNAUTHENTICATED"}
        if code in google:
            h.send_json(code, {"error": {"code": code, "message": message, "status": google[code]}}, headers)
        else:
            h.send_json(code, _error_body(error_type, message), headers)


def _unb64(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
