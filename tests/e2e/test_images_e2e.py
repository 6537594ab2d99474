"""Issue 25 §4 in a real terminal: ``@shot.png`` attaches the image (the request carries an image block), an image
over the API's limit is one line and nothing is sent, ``read_file`` on an image gives the model the image; history
and memory extraction see only ``[image shot.png]``."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

from tests.e2e.conftest import Catcode
from tests.e2e.test_memory_e2e import MEMORY_ON, MemoryModel, capture_done, conversation_lines, of_kind
from tests.fakes import FakeAnthropicServer, text, tool_use

Spawn = Callable[..., Catcode]


def png(width: int, height: int) -> bytes:
    """A valid grey PNG of that size."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def _images(message: dict) -> list[dict]:
    found = [b for b in message["content"] if isinstance(b, dict) and b.get("type") == "image"]
    for block in message["content"]:
        if block.get("type") == "tool_result" and isinstance(block["content"], list):
            found += [b for b in block["content"] if b["type"] == "image"]
    return found


def test_an_image_is_attached_read_and_refused_when_too_big(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path, home_dir: Path
) -> None:
    shot = png(8, 8)
    (project / "shot.png").write_bytes(shot)
    (project / "huge.png").write_bytes(png(1, 1) + b"\0" * (4 * 1024 * 1024))
    (project / "diagram.webp").write_bytes(b"RIFF\x1a\x00\x00\x00WEBPVP8 " + b"\0" * 14)
    fake_server.responder = MemoryModel()
    fake_server.enqueue(
        text("A grey square."),
        tool_use("read_file", {"path": "diagram.webp"}),
        text("A diagram."),
    )
    cat = spawn_catcode(env=MEMORY_ON)
    cat.prompt()
    cat.say("what is in @shot.png?")
    cat.expect_text("Attached shot.png (image/png, 1 KB)")
    cat.expect_text("A grey square.")
    cat.prompt()
    sent = fake_server.requests(path="/v1/messages")[-1].body["messages"][-1]
    assert sent["content"][0] == {"type": "text", "text": "what is in @shot.png?"}
    [image] = _images(sent)
    assert image["source"] == {"type": "base64", "media_type": "image/png", "data": base64.b64encode(shot).decode()}

    asked = len(fake_server.requests(path="/v1/messages"))
    cat.say("and @huge.png?")
    cat.expect_text("huge.png is too big to send: 4.0 MB (5.3 MB as sent); the API takes images up to 5.0 MB as")
    cat.expect_text("nothing was sent")
    cat.prompt()
    assert len(fake_server.requests(path="/v1/messages")) == asked  # nothing was sent

    cat.say("look at the diagram")
    cat.expect_text("A diagram.")
    cat.prompt()
    result = fake_server.requests(path="/v1/messages")[-1].body["messages"][-1]
    [picture] = _images(result)
    assert picture["source"]["media_type"] == "image/webp"
    assert cat.exit() == 0
    capture_done(home_dir)  # the capture runs after the exit, in a process of its own

    history = next((home_dir / ".cat-code" / "memory" / "projects").glob("*/history.jsonl")).read_text()
    assert "[image shot.png]" in history and "[image diagram.webp]" in history
    assert base64.b64encode(shot).decode() not in history and "UklGR" not in history  # no bytes kept
    [extraction] = of_kind(fake_server, "extract")
    lines = "\n".join(conversation_lines(extraction))
    assert "[image shot.png]" in lines and base64.b64encode(shot).decode()[:40] not in json.dumps(extraction.body)
