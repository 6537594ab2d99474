"""An image an MCP tool returns reaches the model as an image block (not "[image ..., not shown]"), and history
keeps only its ``[image name]`` placeholder."""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace

from catcode.conversation.messages import Message, Role, ToolResultBlock
from catcode.extensions.mcp.manager import McpManager
from catcode.extensions.mcp.tools import result_of
from tests.catcode_mcp.conftest import demo
from tests.catcode_mcp.servers.demo_server import TINY_PNG


def test_the_tiny_image_reaches_the_model_as_an_image(tmp_path: Path) -> None:
    manager = McpManager([demo()], project_root=tmp_path, log_dir=tmp_path / "logs", notify=lambda line: None)
    manager.start()
    try:
        manager.wait_ready(20.0)
        result = manager.call("demo", "tiny_image", {}, threading.Event())
    finally:
        manager.stop()
    assert result.text == "a tiny image:" and not result.is_error
    [image] = result.images
    assert image.source.media_type == "image/png" and image.source.data == TINY_PNG
    block = ToolResultBlock(tool_use_id="t1", content=result.text, images=result.images)
    sent = Message(role=Role.USER, content=[block]).to_api()["content"][0]
    assert sent["content"][1] == {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                               "data": TINY_PNG}}  # fmt: skip
    kept = Message(role=Role.USER, content=[block]).without_images()
    assert kept.tool_results[0].content == "a tiny image:\n[image mcp__demo__tiny_image image 1]"
    assert TINY_PNG not in kept.model_dump_json()


def test_an_image_over_the_limit_or_of_another_kind_is_a_line() -> None:
    big = SimpleNamespace(type="image", mime_type="image/png", data="A" * (5 * 1024 * 1024 + 4))
    tiff = SimpleNamespace(type="image", mime_type="image/tiff", data="AAAA")
    result = result_of(SimpleNamespace(content=[big, tiff], is_error=False, structured_content=None), "t")
    assert result.images == []
    assert "t image 1 is too big to send" in result.text and "nothing was sent" in result.text
    assert "[image image/tiff, about 3 bytes, not shown]" in result.text
