"""Images for the model: PNG, JPEG, GIF and WebP files read into ``ImageBlock``s (``@shot.png`` in a message,
``read_file`` on an image), and the one check every image passes before it is sent: the API takes an image of at
most 5 MB as sent (base64). Over that, ``ImageTooBig`` says so in one line and nothing is sent."""

from __future__ import annotations

import base64
from pathlib import Path

from catcode.conversation.messages import ImageBlock, ImageSource
from catcode.errors import CatcodeError

MEDIA_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".webp": "image/webp"}  # fmt: skip
SUPPORTED = frozenset(MEDIA_TYPES.values())
MAX_ENCODED_BYTES = 5 * 1024 * 1024
"""The Messages API's limit per image, on the base64 data as sent."""
MAX_FILE_BYTES = MAX_ENCODED_BYTES * 3 // 4  # the largest file whose base64 fits


class ImageTooBig(CatcodeError):
    """The image is over the API's size limit; nothing was sent."""


class NotAnImage(CatcodeError):
    """The file's bytes are not the image its name says (or not a supported kind)."""


def is_image_path(path: Path | str) -> bool:
    """Does the name end in .png, .jpg, .jpeg, .gif or .webp?"""
    return Path(path).suffix.lower() in MEDIA_TYPES


def sniff(head: bytes) -> str | None:
    """The media type the first bytes announce, or None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def size_text(count: int) -> str:
    """``12 KB``, ``6.2 MB``."""
    if count < 1024 * 1024:
        return f"{max(1, round(count / 1024))} KB"
    return f"{count / (1024 * 1024):.1f} MB"


def too_big_line(name: str, size: int) -> str:
    """The one line for an image over the limit."""
    return (
        f"{name} is too big to send: {size_text(size)} ({size_text(-(-size // 3) * 4)} as sent); the API takes images "
        f"up to {size_text(MAX_ENCODED_BYTES)} as sent, so nothing was sent. Shrink it (e.g. a smaller screenshot) "
        "and try again."
    )


def check_size(name: str, encoded: int, size: int | None = None) -> None:
    """Raise ``ImageTooBig`` when ``encoded`` base64 bytes are over the limit."""
    if encoded > MAX_ENCODED_BYTES:
        raise ImageTooBig(too_big_line(name, size if size is not None else encoded * 3 // 4))


def load_image(path: Path, name: str) -> ImageBlock:
    """The image at ``path`` as a block called ``name``; ``ImageTooBig`` or ``NotAnImage`` (one line) otherwise."""
    size = path.stat().st_size
    check_size(name, -(-size // 3) * 4, size)  # before reading it: a 2 GB file is refused as quickly
    data = path.read_bytes()
    media = sniff(data[:16])
    if media is None:
        raise NotAnImage(f"{name} is not a PNG, JPEG, GIF or WebP image (its bytes say otherwise)")
    encoded = base64.b64encode(data).decode("ascii")
    check_size(name, len(encoded), len(data))
    return ImageBlock(source=ImageSource(media_type=media, data=encoded), name=name)


def image_of(media_type: str, data: str, name: str) -> ImageBlock | None:
    """An image an MCP tool returned (already base64), when it is a kind the API takes and within its limit."""
    if media_type not in SUPPORTED:
        return None
    check_size(name, len(data))
    return ImageBlock(source=ImageSource(media_type=media_type, data=data), name=name)
