"""``McpServerSettings``: one MCP server as settings (``mcp_servers: {NAME: ...}``) and ``.mcp.json`` declare it;
``McpSettings``: how a request waits for the servers (``mcp.startup_timeout``).

Pure pydantic: imported with the settings at start-up, so it must not import the ``mcp`` SDK."""

from __future__ import annotations

import shlex
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

SERVER_NAME_PATTERN = r"^[A-Za-z0-9_-]{1,32}$"
"""Server names become part of tool names (``mcp__<server>__<tool>``), which the API limits to these characters."""


class McpSettings(BaseModel):
    """How the session waits for its MCP servers (``mcp:`` in settings.yaml)."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    startup_timeout: float = Field(10.0, gt=0, le=600, allow_inf_nan=False)
    """Seconds after the servers' start that a message sent before they are ready waits for them (Esc sends at
    once); a server not ready by then is named, and its tools join a later request once it is ready."""


class McpServerSettings(BaseModel):
    """A stdio server (``command``, ``args``, ``env``) or an HTTP one (``url``, ``headers``): streamable HTTP, or
    server-sent events (``type: sse``, the older transport Claude Code still speaks)."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["stdio", "http", "sse"] | None = None
    """stdio, http (streamable HTTP) or sse; unset: stdio when command is given, http when url is."""
    command: str | None = None
    """stdio: the program to run (it speaks MCP on its stdin/stdout)."""
    args: list[str] = Field(default_factory=list)
    """stdio: its arguments."""
    env: dict[str, str] = Field(default_factory=dict)
    """stdio: extra environment variables (it gets only HOME, LOGNAME, PATH, SHELL, TERM, USER besides these)."""
    url: str | None = None
    """http and sse: the server's endpoint, e.g. http://127.0.0.1:8000/mcp."""
    headers: dict[str, str] = Field(default_factory=dict)
    """http and sse: headers sent with every request (e.g. Authorization)."""
    startup_timeout: float = Field(30.0, gt=0, le=600)
    """Seconds the server has to start and list its tools before it is given up for this session."""
    call_timeout: float = Field(120.0, gt=0, le=3600)
    """Seconds one tool call may take before it is abandoned (the model gets an error result)."""

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerSettings:
        if (self.command is None) == (self.url is None):
            raise ValueError("give either command (a stdio server) or url (a streamable HTTP server)")
        if self.type is not None and self.type != self.transport:
            raise ValueError(f"type {self.type} does not fit a server with {'url' if self.url else 'command'}")
        return self

    @property
    def transport(self) -> Literal["stdio", "http", "sse"]:
        """How catcode talks to it."""
        if self.url is None:
            return "stdio"
        return "sse" if self.type == "sse" else "http"

    def describe(self) -> str:
        """``stdio: npx -y server`` or ``http: https://...`` (header values and URL passwords are never shown)."""
        if self.url is not None:
            return f"{self.transport}: {_without_userinfo(self.url)}"
        return "stdio: " + shlex.join([self.command or "", *self.args])


def _without_userinfo(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    authority, slash, path = rest.partition("/")
    return f"{scheme}://{authority.rpartition('@')[2]}{slash}{path}"
