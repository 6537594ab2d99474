"""The web view as a Starlette application: the page at ``/``, the JSON API under ``/api``, behind ``Guard``.

| endpoint | answer |
|---|---|
| ``GET /api/scopes`` | both scopes, with their paths and counts |
| ``GET /api/memory?scope=SCOPE`` | the entries of a scope (both without ``scope``) |
| ``GET /api/memory/SCOPE/NAME`` | one entry with its content |
| ``GET /api/memory/history?limit=N&name=NAME`` | the git log, newest first |
| ``GET /api/memory/history/ID`` | that change's diff |
| ``POST /api/memory/revert/ID`` | undo that change, as the CLI does |
| ``GET /api/search?q=…&limit=N`` | the hits of ``catcode memory search --json`` |

Errors are ``{"error": "..."}`` with their status. JSON escapes ``<``, ``>`` and ``&`` as ``\\u003c``…, so a memory's
text is never markup, even to a browser that ignored the content type; the page itself inserts text only as text."""

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
from catcode.web.api import ApiError, MemoryView
from catcode.web.guard import Guard

# Any: Starlette's response content and the endpoints' JSON results.

log = get_logger(__name__)

DEFAULT_HISTORY = 50
DEFAULT_SEARCH = 10
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

    def scopes(request: Request) -> Response:
        return answer(view.scopes)

    def memories(request: Request) -> Response:
        return answer(lambda: view.memories(request.query_params.get("scope")))

    def memory(request: Request) -> Response:
        return answer(lambda: view.memory(request.path_params["scope"], request.path_params["name"]))

    def history(request: Request) -> Response:
        name = request.query_params.get("name") or None
        return answer(lambda: view.history(_int(request, "limit", DEFAULT_HISTORY), name))

    def change(request: Request) -> Response:
        return answer(lambda: view.change(request.path_params["change_id"]))

    def revert(request: Request) -> Response:
        if request.method != "POST":
            return SafeJSON({"error": f"{request.method} is not allowed here"}, status_code=405)
        return answer(lambda: view.revert(request.path_params["change_id"]))

    def search(request: Request) -> Response:
        query = request.query_params.get("q", "")
        return answer(lambda: view.search(query, _int(request, "limit", DEFAULT_SEARCH)))

    every_method = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]
    routes = [  # the history routes before {scope}/{name}, which would match them too
        Route("/", index),
        Route("/api/scopes", scopes),
        Route("/api/memory", memories),
        Route("/api/memory/history", history),
        Route("/api/memory/history/{change_id}", change),
        Route("/api/memory/revert/{change_id}", revert, methods=every_method),  # a GET gets 405, not {scope}/{name}
        Route("/api/memory/{scope}/{name}", memory),
        Route("/api/search", search),
    ]

    def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        text = {404: f"No such page or endpoint: {request.url.path}", 405: f"{request.method} is not allowed here"}
        return SafeJSON({"error": text.get(status, "The request failed")}, status_code=status)

    app = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    return Guard(app, token=token, hosts=hosts, any_address=any_address)


def _int(request: Request, key: str, default: int) -> int:
    raw = request.query_params.get(key)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ApiError(400, f"{key} must be a whole number, got {raw!r}") from None
