"""How one request to the Messages API failed, whoever carried it, and the one line a person reads about it.

Both clients (``lean_client.py``, ``sdk_client.py``) turn their failures into these, so the retry policy
(``retry.py``) and the wording below are the same whichever carried the request, to whichever platform (the Claude
API, Amazon Bedrock, Google Vertex AI: only the ``Hints`` of what to check differ). ``began``: the 200 answer had
started streaming when it failed (its text may already be on screen: never retried)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from catcode.errors import ProviderError
from catcode.text import shorten

DETAIL_CHARS = 300  # of an error's detail in the one line a person sees
MIDSTREAM_STATUS = {"overloaded_error": 529, "rate_limit_error": 429, "api_error": 500}
"""The HTTP status an ``event: error`` of a 200 stream stands for (what a caller may act on)."""


@dataclass(frozen=True)
class Hints:
    """What a failure line tells the person to check, per platform."""

    credentials: str = "ANTHROPIC_API_KEY"
    """After "Authentication failed (401) — check": the credentials this platform was given."""
    endpoint: str = "ANTHROPIC_BASE_URL"
    """After "check your network or" and "check the model name and": what chose the endpoint."""


CLAUDE_API = Hints()
"""The Claude API's (first-party) hints."""


class ApiFailure(Exception):
    """One attempt failed."""

    def __init__(self, message: str, *, began: bool = False) -> None:
        super().__init__(message)
        self.began = began


class ApiStatusFailure(ApiFailure):
    """The API answered with an error: an HTTP status before the stream, or an ``event: error`` within it."""

    def __init__(
        self,
        status: int,
        detail: str,
        *,
        error_type: str | None = None,
        headers: Mapping[str, str] | None = None,
        began: bool = False,
    ) -> None:
        super().__init__(f"{status}: {detail}", began=began)
        self.status_code = status
        self.detail = detail
        self.error_type = error_type
        self.headers = {k.lower(): v for k, v in (headers or {}).items()}


class ApiConnectionFailure(ApiFailure):
    """No answer: the server could not be reached, the connection dropped, or it went quiet for too long."""

    def __init__(self, cause: str, *, timed_out: bool = False, began: bool = False) -> None:
        super().__init__(cause, began=began)
        self.timed_out = timed_out


class NotCovered(ApiFailure):
    """The lean client met what only the SDK handles (a redirect): the request goes again, through the SDK."""


class CredentialsFailure(ApiFailure):
    """No credentials could be had for the request (none configured, or they could not be loaded): nothing was
    sent. The message is the one line the person reads; it is reported like a rejected key (401), never retried."""


class StreamFailure(ApiFailure):
    """Anything else that broke a stream once it had begun (a tool call's input that is not JSON, an event out of
    order), named after the original error."""

    def __init__(self, err: Exception) -> None:
        super().__init__(f"{type(err).__name__}: {err}" if str(err) else type(err).__name__, began=True)


def status_detail(status: int, text: str) -> tuple[str, str | None]:
    """``(detail, error type)`` of an error answer's body, worded as the SDK words it: the body's
    ``error.message`` when there is one, else ``Error code: N - <body>``."""
    import json

    stripped = text.strip()
    try:
        body = json.loads(stripped)
    except ValueError:
        return stripped or f"Error code: {status}", None
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    kind = error.get("type") if isinstance(error, dict) else None
    return (message if message else f"Error code: {status} - {body}"), (kind if isinstance(kind, str) else None)


def provider_error(err: Exception, *, where: str, retries: int, hints: Hints = CLAUDE_API) -> ProviderError:
    """One readable line for any failure of a request to ``where`` after ``retries`` retries."""
    if isinstance(err, CredentialsFailure):
        return ProviderError(str(err), status=401)
    if isinstance(err, ApiStatusFailure):
        detail = shorten(err.detail, DETAIL_CHARS)
        if err.began:
            status = MIDSTREAM_STATUS.get(str(err.error_type or ""))
            cause = shorten(f"{err.error_type}: {detail}" if err.error_type else detail, DETAIL_CHARS)
            return ProviderError(f"Stream failed mid-response: {cause} — try again", status=status)
        return _status_error(err.status_code, detail, retries, hints)
    if isinstance(err, ApiConnectionFailure):
        if err.began:
            what = "no data came for too long" if err.timed_out else "the connection closed before the reply ended"
            return ProviderError(f"Stream failed mid-response: {what} — try again")
        if err.timed_out:
            return ProviderError(f"Timed out talking to {where} after {retries} retries — try again", retries=retries)
        return ProviderError(f"Cannot reach {where} — check your network or {hints.endpoint}", retries=retries)
    if isinstance(err, StreamFailure):
        return ProviderError(f"Stream failed mid-response: {shorten(str(err), DETAIL_CHARS)} — try again")
    cause = shorten(f"{type(err).__name__}: {err}" if str(err) else type(err).__name__, DETAIL_CHARS)
    return ProviderError(f"Request failed: {cause}")


def _status_error(code: int, detail: str, retries: int, hints: Hints) -> ProviderError:
    if code == 529:
        msg = f"API overloaded (529) after {retries} retries — try again in a minute"
    elif code == 429:
        msg = f"Rate limited (429) after {retries} retries — wait a moment and try again"
    elif code == 401:
        msg = f"Authentication failed (401) — check {hints.credentials}"
    elif code == 403:
        msg = f"Permission denied (403): {detail}"
    elif code == 400:
        msg = f"Bad request (400): {detail}"
    elif code == 404:
        msg = f"Not found (404): {detail} — check the model name and {hints.endpoint}"
    else:
        msg = f"API error ({code}): {detail}"
    return ProviderError(msg, status=code, retries=retries if code in (408, 409, 429) or code >= 500 else 0)
