"""Test fakes. ``anthropic_server.py``: ``FakeAnthropicServer``, a scripted Messages API over real HTTP."""

from tests.fakes.anthropic_server import (
    NO_SCRIPT,
    FakeAnthropicServer,
    RecordedRequest,
    Step,
    drop_midstream,
    error_midstream,
    message,
    status,
    text,
    tool_use,
    validation_error,
)

__all__ = [
    "NO_SCRIPT",
    "FakeAnthropicServer",
    "RecordedRequest",
    "Step",
    "drop_midstream",
    "error_midstream",
    "message",
    "status",
    "text",
    "tool_use",
    "validation_error",
]
