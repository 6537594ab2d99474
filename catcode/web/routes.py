"""The web view as a Starlette application: the page at ``/`` and the JSON API's endpoints (``api.ENDPOINTS``),
behind ``Guard``. Errors are ``{"error": "..."}`` with their status. JSON escapes ``<``, ``>`` and ``&`` as
``\\u003c``…, so a memory's text is never markup, even to a browser that ignored the content type; the page itself
inserts text only as text."""

from __future__ import annotations

import json
import secrets
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from catcode.errors import one_line
from catcode.log import get_logger
from catcode.web.api import ENDPOINTS, ApiError, Endpoint, MemoryView
from catcode.web.guard import Guard

# Any: Starlette's response content and the endpoints' JSON results.

log = get_logger(__name__)

_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"}


class SafeJSON(JSONResponse):
    """JSON whose text holds no ``<``, ``>`` or ``&`` (escaped as unicode escapes: the same values)."""

    def render(self, content: Any) -> bytes:
        text = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return text.translate(_ESCAPES).encode("utf-8")


def create_app(view: MemoryView, *, token: str, hosts: set[str] | None, any_address: bool = False) -> Guard:
    """The application for ``view``; only requests with ``token`` and an accepted Host header reach it (``hosts``,
    or with ``any_address`` also a Host naming an IP address: see ``Guard``)."""
    page = resources.files("catcode.web").joinpath("page.html").read_text(encoding="utf-8")

    def index(request: Request) -> Response:
        nonce = secrets.token_urlsafe(16)
        policy = (
            f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'; "
            "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        )
        return HTMLResponse(page.replace("{{nonce}}", nonce), headers={"content-security-policy": policy})

    def answer(call: Any) -> Response:
        try:
            return SafeJSON(call())
        except ApiError as exc:
            return SafeJSON({"error": str(exc)}, status_code=exc.status)
        except Exception as exc:
            log.exception("web_request_failed")
            return SafeJSON({"error": f"unexpected error: {one_line(exc)} (details in the log)"}, status_code=500)

    def endpoint(row: Endpoint) -> Any:
        def respond(request: Request) -> Response:
            if row.method != "GET" and request.method != row.method:
                return SafeJSON({"error": f"{request.method} is not allowed here"}, status_code=405)
            return answer(lambda: row.answer(view, request))

        return respond

    every_method = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]
    routes = [Route("/", index)] + [  # a GET of a POST endpoint gets 405, not a later path's answer
        Route(row.path, endpoint(row), methods=None if row.method == "GET" else every_method) for row in ENDPOINTS
    ]

    def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        text = {404: f"No such page or endpoint: {request.url.path}", 405: f"{request.method} is not allowed here"}
        return SafeJSON({"error": text.get(status, "The request failed")}, status_code=status)

    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    return Guard(app, token=token, hosts=hosts, any_address=any_address)
