"""Conversation messages: roles and content blocks (text, image, tool_use, tool_result).

The stored conversation holds only USER and ASSISTANT messages. SYSTEM messages exist only for a single
request (hooks append them; the provider moves them into the ``system`` parameter)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

# Any: content blocks become Messages API JSON; a tool call's input is the model's JSON object.


class Role(StrEnum):
    """Who speaks."""

    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"


class TextBlock(BaseModel):
    """Plain text."""

    type: Literal["text"] = "text"
    text: str


class ImageSource(BaseModel):
    """An image's bytes, base64-encoded, and their media type (image/png, image/jpeg, image/gif, image/webp)."""

    type: Literal["base64"] = "base64"
    media_type: str
    data: str


class ImageBlock(BaseModel):
    """An image the model sees (``@shot.png``, ``read_file`` on an image, an MCP tool's image). ``name`` is for the
    person only: history and transcripts show ``[image <name>]`` instead of the bytes."""

    type: Literal["image"] = "image"
    source: ImageSource
    name: str = "image"

    def to_api(self) -> dict[str, Any]:
        """The Messages API shape (no name)."""
        return {"type": "image", "source": self.source.model_dump()}

    @property
    def placeholder(self) -> str:
        """``[image shot.png]``: what is kept of it in history and transcripts."""
        return f"[image {self.name}]"


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
    images: list[ImageBlock] = Field(default_factory=list)  # sent after the text, as the API's content list

    def to_api(self) -> dict[str, Any]:
        """The Messages API shape: the text alone, or text then images."""
        content: str | list[dict[str, Any]] = self.content
        if self.images:
            content = [{"type": "text", "text": self.content}, *(i.to_api() for i in self.images)]
        return {"type": "tool_result", "tool_use_id": self.tool_use_id, "content": content, "is_error": self.is_error}


ContentBlock = Annotated[TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock, Field(discriminator="type")]


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
        blocks = [b.to_api() if isinstance(b, ImageBlock | ToolResultBlock) else b.model_dump() for b in self.content]
        return {"role": self.role.value, "content": blocks}

    @property
    def images(self) -> list[ImageBlock]:
        """Every image it carries, its tool results' included."""
        found = [b for b in self.content if isinstance(b, ImageBlock)]
        return found + [i for r in self.tool_results for i in r.images]

    def without_images(self) -> Message:
        """A copy where each image is its ``[image name]`` placeholder: what history, memory extraction and
        transcripts keep (never the bytes)."""
        if not self.images:
            return self
        content: list[ContentBlock] = []
        for block in self.content:
            if isinstance(block, ImageBlock):
                content.append(TextBlock(text=block.placeholder))
            elif isinstance(block, ToolResultBlock) and block.images:
                shown = "\n".join([block.content, *(i.placeholder for i in block.images)])
                content.append(block.model_copy(update={"content": shown, "images": []}))
            else:
                content.append(block)
        return Message(role=self.role, content=content)


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
