"""``Transports``: how the client reaches one server — a stdio subprocess (in the project root, its stderr in
``logs/mcp-<name>.log``, 0600, redacted line by line, never on the terminal), streamable HTTP or server-sent events
with the configured headers. A server's stderr goes through a pipe, not straight to the file: servers print their
tokens and URLs with credentials, and nothing secret may reach a log file."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import IO, Any, TextIO

from catcode.extensions.mcp.sources import ServerSpec
from catcode.file_modes import private_dir
from catcode.redact import redact

# Any: the mcp SDK's transport streams are third-party objects.

_PUMP_JOIN = 2.0  # seconds close() waits for a pump to write what a stopped server said last


class Transports:
    """Opens transports for the SDK's ``Client`` and keeps the stderr logs they write to."""

    def __init__(self, project_root: Path, log_dir: Path) -> None:
        self.project_root, self.log_dir = project_root, log_dir
        self._errlogs: list[IO[str]] = []
        self._pumps: list[threading.Thread] = []

    def open(self, spec: ServerSpec) -> Any:
        """The transport (an async context manager yielding the SDK's streams) for ``spec``."""
        settings = spec.settings
        if settings.transport == "sse":
            from mcp.client.sse import sse_client

            assert settings.url is not None
            return sse_client(settings.url, headers=settings.headers)
        if settings.transport == "http":
            assert settings.url is not None
            return _http_transport(settings.url, settings.headers)
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        assert settings.command is not None
        params = StdioServerParameters(
            command=settings.command, args=settings.args, env=settings.env or None, cwd=str(self.project_root)
        )
        return stdio_client(params, errlog=self._errlog(spec.name))

    def log_path(self, name: str) -> Path:
        """Where a stdio server's stderr goes."""
        return self.log_dir / f"mcp-{name}.log"

    def stderr_hint(self, spec: ServerSpec) -> str:
        """``; its stderr is in ...`` for a stdio server's failure line, else ""."""
        return f"; its stderr is in {self.log_path(spec.name)}" if spec.settings.transport == "stdio" else ""

    def close(self) -> None:
        """Close the stderr pipes; each log is complete once its server has exited too."""
        for errlog in self._errlogs:
            with contextlib.suppress(OSError):
                errlog.close()
        for pump in self._pumps:
            pump.join(_PUMP_JOIN)

    def _errlog(self, name: str) -> TextIO:
        """The write end of a pipe whose lines a thread redacts into ``logs/mcp-<name>.log``."""
        private_dir(self.log_dir)
        fd = os.open(self.log_path(name), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        sink = os.fdopen(fd, "a", encoding="utf-8")
        read_end, write_end = os.pipe()
        pump = threading.Thread(target=_redact_into, args=(read_end, sink), name=f"mcp-{name}-stderr", daemon=True)
        pump.start()
        errlog = os.fdopen(write_end, "w", encoding="utf-8")
        self._errlogs.append(errlog)
        self._pumps.append(pump)
        return errlog


def _redact_into(read_end: int, sink: IO[str]) -> None:
    """Copy a server's stderr into its log, each line redacted, until every writer has closed the pipe."""
    with os.fdopen(read_end, encoding="utf-8", errors="replace") as source, sink:
        for line in source:
            sink.write(redact(line)[0])
            sink.flush()


@contextlib.asynccontextmanager
async def _http_transport(url: str, headers: dict[str, str]) -> AsyncIterator[Any]:
    """Streamable HTTP with the configured headers (the SDK takes them through its HTTP client)."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0)) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams
