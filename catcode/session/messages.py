"""Conversation messages: roles and content blocks (text, tool_use, tool_result).

The stored conversation holds only USER and ASSISTANT messages. SYSTEM messages exist only for a single
request (hooks append them; the provider moves them into the ``system`` parameter)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field


class Role(StrEnum):
    """Who speaks."""

    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"


class TextBlock(BaseModel):
    """Plain text."""

    type: Literal["text"] = "text"
    text: str


class ToolUseBlock(BaseModel):
    """The model asks to run a tool."""

    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: dict[str, Any] = Field(default_factory=dict)


class ToolResultBlock(BaseModel):
    """What a tool returned, answering the ``tool_use`` with the same id."""

    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    content: str
    is_error: bool = False


ContentBlock = Annotated[TextBlock | ToolUseBlock | ToolResultBlock, Field(discriminator="type")]


class Message(BaseModel):
    """One message: a role and its content blocks."""

    role: Role
    content: list[ContentBlock]

    @classmethod
    def user(cls, text: str) -> Message:
        """A user message holding one text block."""
        return cls(role=Role.USER, content=[TextBlock(text=text)])

    @classmethod
    def assistant(cls, text: str) -> Message:
        """An assistant message holding one text block."""
        return cls(role=Role.ASSISTANT, content=[TextBlock(text=text)])

    @classmethod
    def system(cls, text: str) -> Message:
        """A per-request system message (never stored in the conversation)."""
        return cls(role=Role.SYSTEM, content=[TextBlock(text=text)])

    @property
    def text(self) -> str:
        """All text blocks joined by newlines."""
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def tool_uses(self) -> list[ToolUseBlock]:
        """The tool_use blocks, in order."""
        return [b for b in self.content if isinstance(b, ToolUseBlock)]

    @property
    def tool_results(self) -> list[ToolResultBlock]:
        """The tool_result blocks, in order."""
        return [b for b in self.content if isinstance(b, ToolResultBlock)]

    @property
    def is_tool_result(self) -> bool:
        """True for a user message that carries tool results (not a turn boundary)."""
        return self.role is Role.USER and bool(self.tool_results)

    def to_api(self) -> dict[str, Any]:
        """The Messages API shape of this message."""
        return {"role": self.role.value, "content": [b.model_dump() for b in self.content]}


def history_problems(messages: list[Message]) -> list[str]:
    """Why ``messages`` would be rejected by the Messages API; empty when it is valid.

    Rules: no system messages; the first message is from the user; roles alternate; no empty content;
    every assistant tool_use is answered by exactly one tool_result in the very next (user) message,
    and a tool_result answers a tool_use of the message just before it.
    """
    problems: list[str] = []
    if messages and messages[0].role is not Role.USER:
        problems.append("first message is not from the user")
    pending: set[str] = set()
    for i, msg in enumerate(messages):
        if msg.role is Role.SYSTEM:
            problems.append(f"message {i} is a system message")
            continue
        if not msg.content:
            problems.append(f"message {i} has no content")
        if i and messages[i - 1].role is msg.role:
            problems.append(f"messages {i - 1} and {i} are both {msg.role.value}")
        results = [b.tool_use_id for b in msg.tool_results]
        if msg.role is Role.USER:
            if sorted(results) != sorted(pending) or len(set(results)) != len(results):
                problems.append(f"message {i} answers tool_use ids {results}, expected {sorted(pending)}")
            pending = set()
        else:
            if results:
                problems.append(f"assistant message {i} carries tool_result blocks")
            if pending:
                problems.append(f"tool_use ids {sorted(pending)} before message {i} have no tool_result")
            pending = {b.id for b in msg.tool_uses}
    if pending:
        problems.append(f"tool_use ids {sorted(pending)} at the end have no tool_result")
    return problems
