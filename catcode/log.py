"""structlog setup: JSON lines to ``$CATCODE_HOME/logs/catcode.log``; the terminal only under ``--debug``.

Called once, from ``cli.py``. API keys and Authorization headers never reach the log: a processor masks them
in every event, whatever logged them."""

from __future__ import annotations

import logging
import os
import re
import sys
from pathlib import Path
from typing import Any

_SECRET_KEYS = re.compile(r"(api[_-]?key|authorization|x-api-key|password|secret|token)$", re.I)
_SECRET_VALUES = re.compile(r"(sk-ant-[A-Za-z0-9_\-]{8,}|sk-[A-Za-z0-9_\-]{20,}|Bearer\s+[A-Za-z0-9._\-]{8,})")


def _mask(value: Any) -> Any:
    if isinstance(value, str):
        return _SECRET_VALUES.sub("[REDACTED]", value)
    if isinstance(value, dict):
        return {k: "[REDACTED]" if _SECRET_KEYS.search(str(k)) else _mask(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_mask(v) for v in value]
    return value


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
        import structlog

        return getattr(structlog.get_logger(self._name), attr)


def get_logger(name: str) -> LazyLogger:
    """The logger for module ``name`` (use at module level: ``log = get_logger(__name__)``)."""
    return LazyLogger(name)


def configure(log_file: Path, *, debug: bool = False) -> None:
    """Route structlog and stdlib logging to ``log_file`` (and stderr when ``debug``)."""
    import structlog

    handlers: list[logging.Handler] = []
    try:
        log_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        file_handler = logging.FileHandler(log_file, encoding="utf-8")
        os.chmod(log_file, 0o600)
        handlers.append(file_handler)
    except OSError:
        pass  # an unwritable log never stops the agent
    if debug:
        handlers.append(logging.StreamHandler(sys.stderr))
    if not handlers:
        handlers.append(logging.NullHandler())
    root = logging.getLogger()
    for old in root.handlers:
        old.close()
    root.handlers[:] = handlers
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    for noisy in ("httpx", "httpx2", "httpcore", "anthropic"):
        logging.getLogger(noisy).setLevel(logging.DEBUG if debug else logging.WARNING)
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
        wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG if debug else logging.INFO),
        cache_logger_on_first_use=True,
    )
