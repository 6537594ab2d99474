"""When and how long to wait before retrying a failed API request, and the line that tells the person.

The policy follows the SDK's own (which catcode turns off so each retry can be shown): retry 408, 409, 429 and
5xx answers and connection failures, unless the server says ``x-should-retry: false``; wait what the server asks
(``retry-after-ms``, ``retry-after`` in seconds, up to 60 s), else an exponential backoff from 0.5 s to 8 s with
up to 25% jitter. It reads the failures of ``failures.py`` (whichever client carried the request): no SDK import."""

from __future__ import annotations

import random
from typing import Any

from catcode.providers.failures import ApiConnectionFailure, ApiStatusFailure

# Any: the headers of an SDK or HTTP error, whichever library raised it.

MAX_SERVER_DELAY = 60.0
BASE_DELAY, MAX_DELAY = 0.5, 8.0


def _status(err: Exception) -> int | None:
    code = getattr(err, "status_code", None)
    return code if isinstance(code, int) else None


def _headers(err: Exception) -> Any:
    return err.headers if isinstance(err, ApiStatusFailure) else {}


def retryable(err: Exception) -> bool:
    """Is this failure worth another attempt?"""
    should = str(_headers(err).get("x-should-retry", "")).lower()
    if should in ("true", "false"):
        return should == "true"
    if isinstance(err, ApiStatusFailure):
        code = err.status_code
        return code in (408, 409, 429) or code >= 500
    return isinstance(err, ApiConnectionFailure)


def retry_delay(err: Exception, attempt: int) -> float:
    """Seconds to wait before retry number ``attempt`` (1-based)."""
    headers = _headers(err)
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name)
        try:
            value = float(raw) * scale if raw is not None else None
        except (TypeError, ValueError):
            value = None
        if value is not None and 0 < value <= MAX_SERVER_DELAY:
            return value
    backoff = min(BASE_DELAY * 2 ** (attempt - 1), MAX_DELAY)
    return backoff * (1 - 0.25 * random.random())


def retry_notice(err: Exception, delay: float, attempt: int, max_retries: int) -> str:
    """E.g. ``overloaded, retrying in 2 s (attempt 2/4)``."""
    return f"{_reason(err)}, retrying in {_seconds(delay)} (attempt {attempt}/{max_retries})"


def _reason(err: Exception) -> str:
    code = _status(err)
    if code == 529:
        return "overloaded"
    if code == 429:
        return "rate limited"
    if code == 408 or (isinstance(err, ApiConnectionFailure) and err.timed_out):
        return "timed out"
    if code == 409:
        return "conflict"
    if code is not None:
        return f"server error ({code})"
    return "connection failed"


def _seconds(delay: float) -> str:
    return f"{delay:.0f} s" if delay >= 1 else f"{delay * 1000:.0f} ms"
