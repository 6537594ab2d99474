"""structlog setup: JSON lines to ``$CATCODE_HOME/logs/catcode.log`` (0600); the terminal only under ``--debug``.

Called once, from ``launch.py``. Nothing secret reaches the log or the terminal: every line, catcode's and third-party
loggers' alike, passes the same redactor as memory and history (``RedactingFormatter``), and a processor masks
values under secret-named keys in structlog events. Third-party loggers below WARNING (the SDK's "Request
options" lines carry the whole request body, everything typed included) are kept out of the file altogether;
under ``--debug`` they go to the terminal only, redacted."""

from __future__ import annotations

import logging
import re
import sys
import threading
from pathlib import Path
from typing import Any

_SECRET_KEYS = re.compile(r"(api[_-]?key|authorization|x-api-key|password|secret|token)$", re.I)
_SECRET_VALUES = re.compile(r"(sk-ant-[A-Za-z0-9_\-]{8,}|sk-[A-Za-z0-9_\-]{20,}|Bearer\s+[A-Za-z0-9._\-]{8,})")
_setup = threading.Lock()
_pending: dict[str, int] = {}  # the level ``configure`` asked for, until structlog is configured with it


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


def own_records_or_warnings(record: logging.LogRecord) -> bool:
    """The log file's filter: catcode's own records, and other libraries' warnings and errors only."""
    return record.name.startswith("catcode") or record.levelno >= logging.WARNING


def scrub_secrets(_logger: Any, _method: str, event: dict[str, Any]) -> dict[str, Any]:
    """structlog processor: mask anything that looks like a credential."""
    return _mask(event)


class LazyLogger:
    """A structlog logger created on first use: importing structlog costs ~100 ms (its dev module loads rich
    tracebacks), which the interactive prompt must not pay before it appears."""

    __slots__ = ("_logger", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._logger: Any = None

    def __getattr__(self, attr: str) -> Any:
        return getattr(_structlog().get_logger(self._name), attr)


def get_logger(name: str) -> LazyLogger:
    """The logger for module ``name`` (use at module level: ``log = get_logger(__name__)``)."""
    return LazyLogger(name)


def configure(log_file: Path, *, debug: bool = False) -> None:
    """Route structlog and stdlib logging to ``log_file`` (and stderr when ``debug``). The stdlib handlers are set
    now; structlog is configured when it is first used (importing it is what costs the time)."""
    from catcode.modes import private_file

    handlers: list[logging.Handler] = []
    try:
        file_handler = logging.FileHandler(private_file(log_file), encoding="utf-8")
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
        _pending["level"] = logging.DEBUG if debug else logging.INFO
    if "structlog" in sys.modules:  # already in use: configure it now, as before
        _structlog()


def _structlog() -> Any:
    """The structlog module, configured as ``configure`` asked the first time it is used after that call."""
    import structlog

    with _setup:
        level = _pending.pop("level", None)
        if level is not None:
            structlog.configure(
                processors=[
                    structlog.contextvars.merge_contextvars,
                    structlog.processors.add_log_level,
                    structlog.processors.TimeStamper(fmt="iso", utc=True),
                    structlog.processors.format_exc_info,
                    scrub_secrets,
                    structlog.processors.JSONRenderer(ensure_ascii=False, default=str),
                ],
                logger_factory=structlog.stdlib.LoggerFactory(),
                wrapper_class=structlog.make_filtering_bound_logger(level),
                cache_logger_on_first_use=True,
            )
    return structlog
