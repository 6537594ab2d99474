"""structlog setup: JSON lines to ``$CATCODE_HOME/logs/catcode.log`` (0600); the terminal only under ``--debug``.

Called once, from ``launch.py``. Nothing secret reaches the log or the terminal: every line, catcode's and third-party
loggers' alike, passes the same redactor as memory and history (``RedactingFormatter``), and a processor masks
values under secret-named keys in structlog events. Third-party loggers below WARNING, and the request dumps of
catcode's own lean API client (``WIRE``), are kept out of the file altogether (their "Request options" lines carry
the whole request body, everything typed included); under ``--debug`` they go to the terminal only, redacted.

Importing structlog costs ~25 ms of processor time (its development module loads rich's tracebacks), which a message
sent the instant the prompt appears would wait for: until something imports it (``load``, called once the
interactive session is idle), the level methods write the very line structlog's pipeline would (``early_line``: the
same fields in the same order, masked the same way; a test keeps the two equal), straight to the stdlib logger.
Anything else asked of a logger (``bind``...) imports structlog at once."""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
import traceback
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any

# Any: structlog's loggers, processors and event dictionaries (a third-party API), and the values logged.

_SECRET_KEYS = re.compile(r"(api[_-]?key|authorization|x-api-key|password|secret|token)$", re.I)
_SECRET_VALUES = re.compile(r"(sk-ant-[A-Za-z0-9_\-]{8,}|sk-[A-Za-z0-9_\-]{20,}|Bearer\s+[A-Za-z0-9._\-]{8,})")
_setup = threading.Lock()
_pending: dict[str, int] = {}  # the level ``configure`` asked for, until structlog is configured with it
_configured: dict[str, int] = {}  # the level of the last ``configure`` (the early lines' level filter)
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}
_LEVELS.update(critical=logging.CRITICAL, exception=logging.ERROR)
WIRE = "catcode.wire"
"""The stdlib logger of the lean API client's request dumps (``--debug``: terminal only, as the SDK's)."""


def _mask(value: Any) -> Any:
    if isinstance(value, str):
        return _redact(_SECRET_VALUES.sub("[REDACTED]", value))
    if isinstance(value, dict):
        return {k: "[REDACTED]" if _SECRET_KEYS.search(str(k)) else _mask(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_mask(v) for v in value]
    return value


def _redact(text: str) -> str:
    from catcode.redact import redact  # imported on first use: the prompt does not wait for its rules

    return redact(text)[0]


class RedactingFormatter(logging.Formatter):
    """Formats a record as usual, then redacts the whole line (message, arguments and traceback)."""

    def format(self, record: logging.LogRecord) -> str:
        """The redacted line."""
        return _redact(super().format(record))


class QuietFileHandler(logging.FileHandler):
    """The log file's handler. A line that cannot be written (a full disk) is dropped; the first such failure is one
    line on stderr, never logging's "--- Logging error ---" traceback (which would bury what the person needs)."""

    said = False  # per process: one line, however many log lines are lost

    def handleError(self, record: logging.LogRecord) -> None:
        """Say once that the log cannot be written; drop the line."""
        if QuietFileHandler.said:
            return
        QuietFileHandler.said = True
        error = sys.exc_info()[1]
        reason = getattr(error, "strerror", None) or error or "unknown error"
        try:
            sys.stderr.write(f"catcode: cannot write the log {self.baseFilename} ({reason}); log lines are dropped\n")
            sys.stderr.flush()
        except Exception:
            pass  # stderr is gone too: nothing more can be said

    def close(self) -> None:
        """Close the file; what is still buffered and cannot be written (a full disk) is dropped."""
        try:
            super().close()
        except OSError:
            pass  # the stream is let go all the same (``FileHandler.close`` does that before closing it)


def own_records_or_warnings(record: logging.LogRecord) -> bool:
    """The log file's filter: catcode's own records, and other libraries' warnings and errors only."""
    own = record.name.startswith("catcode") and record.name != WIRE
    return own or record.levelno >= logging.WARNING


def scrub_secrets(_logger: Any, _method: str, event: dict[str, Any]) -> dict[str, Any]:
    """structlog processor: mask anything that looks like a credential."""
    return _mask(event)


class LazyLogger:
    """A structlog logger created on first use; until structlog is imported, its level methods write the line
    structlog would (``early_line``): neither the prompt nor the first request waits for the import."""

    __slots__ = ("_logger", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._logger: Any = None

    def __getattr__(self, attr: str) -> Any:
        if attr in _LEVELS and "structlog" not in sys.modules and "level" in _configured:
            return partial(_write_early, self._name, attr)
        return getattr(_structlog().get_logger(self._name), attr)


def _write_early(name: str, method: str, event: str, /, *args: Any, **kw: Any) -> None:
    line = early_line(method, event, args, kw, _configured["level"])
    if line is not None:
        getattr(logging.getLogger(name), "error" if method == "exception" else method)(line)


def early_line(method: str, event: str, args: tuple[Any, ...], kw: dict[str, Any], level: int) -> str | None:
    """The line ``structlog``, set up by ``configure`` at ``level``, renders for ``logger.<method>(event, *args,
    **kw)`` — None when ``level`` filters it out (``processors`` lists the same steps)."""
    if _LEVELS[method] < level:
        return None
    if method == "exception":
        kw.setdefault("exc_info", True)
    if args:  # structlog's interpolation: one non-empty mapping is used by name
        event = event % (args[0] if len(args) == 1 and isinstance(args[0], Mapping) and args[0] else args)
    event_dict: dict[str, Any] = {**kw, "event": event}
    event_dict["level"] = "error" if method == "exception" else method
    event_dict["timestamp"] = datetime.now(tz=UTC).isoformat().replace("+00:00", "Z")
    exc_info = _exc_info(event_dict.pop("exc_info", None))
    if exc_info is not None:
        event_dict["exception"] = "".join(traceback.format_exception(*exc_info)).removesuffix("\n")
    return json.dumps(_mask(event_dict), ensure_ascii=False, default=str)


def _exc_info(value: Any) -> tuple[Any, Any, Any] | None:
    """An ``exc_info`` argument as structlog reads it: an exception, a tuple, or true for the one being handled."""
    if isinstance(value, BaseException):
        return type(value), value, value.__traceback__
    if isinstance(value, tuple) and len(value) == 3:
        kind, error, trace = value
        exception = isinstance(kind, type) and issubclass(kind, BaseException) and isinstance(error, BaseException)
        if exception and (trace is None or isinstance(trace, TracebackType)):
            return value
    if value and sys.exc_info()[1] is not None:
        return sys.exc_info()
    return None


def get_logger(name: str) -> LazyLogger:
    """The logger for module ``name`` (use at module level: ``log = get_logger(__name__)``)."""
    return LazyLogger(name)


def configure(log_file: Path, *, debug: bool = False) -> None:
    """Route structlog and stdlib logging to ``log_file`` (and stderr when ``debug``). The stdlib handlers are set
    now; structlog is configured when it is first used (importing it is what costs the time)."""
    from catcode.file_modes import private_file

    handlers: list[logging.Handler] = []
    try:
        file_handler = QuietFileHandler(private_file(log_file), encoding="utf-8")
        file_handler.addFilter(own_records_or_warnings)
        handlers.append(file_handler)
    except OSError:
        pass  # an unwritable log never stops the agent
    if debug:
        handlers.append(logging.StreamHandler(sys.stderr))
    for handler in handlers:
        handler.setFormatter(RedactingFormatter())
    if not handlers:
        handlers.append(logging.NullHandler())
    root = logging.getLogger()
    for old in root.handlers:
        old.close()
    root.handlers[:] = handlers
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    for noisy in ("httpx", "httpx2", "httpcore", "anthropic"):
        logging.getLogger(noisy).setLevel(logging.DEBUG if debug else logging.WARNING)
    with _setup:
        _pending["level"] = _configured["level"] = logging.DEBUG if debug else logging.INFO
    if "structlog" in sys.modules:  # already in use: configure it now, as before
        _structlog()


def load() -> None:
    """Import and configure structlog now (when the session is idle: from then on it writes every line)."""
    _structlog()


def processors() -> list[Any]:
    """structlog's processors for the log file's JSON lines (imports structlog)."""
    import structlog

    return [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info,
        scrub_secrets,
        structlog.processors.JSONRenderer(ensure_ascii=False, default=str),
    ]


def _structlog() -> Any:
    """The structlog module, configured as ``configure`` asked the first time it is used after that call."""
    import structlog

    with _setup:
        level = _pending.pop("level", None)
        if level is not None:
            structlog.configure(
                processors=processors(),
                logger_factory=structlog.stdlib.LoggerFactory(),
                wrapper_class=structlog.make_filtering_bound_logger(level),
                cache_logger_on_first_use=True,
            )
    return structlog
