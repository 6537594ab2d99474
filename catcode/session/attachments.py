"""``@path`` in a message attaches that file: its text (bounded, marked when cut) is added to the message, so the
model sees it without a tool call; a PNG, JPEG, GIF or WebP image is attached as an image block
(``catcode.conversation.images``; one over the API's size limit raises ``ImageTooBig``, and the message is not sent).
Only files inside the project are attached; other binary files, folders, and words that merely look like ``@name``
(an e-mail address, a decorator, a path that does not exist) are left as text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from catcode.boundary import wrap

if TYPE_CHECKING:
    from catcode.conversation.messages import ImageBlock

MAX_CHARS = 50_000
"""Characters attached per file; the rest is cut with a marker."""
MAX_FILES = 10
_AT = re.compile(r"(?:^|(?<=\s))@([^\s@]+)")


@dataclass(frozen=True)
class Attached:
    """One attached file, for the line shown to the person."""

    path: str
    lines: int
    cut: bool
    image: str = ""  # "image/png, 12 KB" for an image

    def describe(self) -> str:
        """``Attached src/app.py (120 lines)``, ``Attached shot.png (image/png, 12 KB)``."""
        if self.image:
            return f"Attached {self.path} ({self.image})"
        size = f"{self.lines} line{'s' if self.lines != 1 else ''}"
        return f"Attached {self.path} ({size}{f', cut at {MAX_CHARS:,} characters' if self.cut else ''})"


def attach(text: str, project_root: Path) -> tuple[str, list[Attached]]:
    """``text`` followed by a ``<file path="…">`` block per ``@path`` naming a readable text file of the
    project, and what was attached (images are left out: ``attach_all`` takes them)."""
    message, found, _ = attach_all(text, project_root, images=False)
    return message, found


def attach_all(text: str, project_root: Path, *, images: bool = True) -> tuple[str, list[Attached], list[ImageBlock]]:
    """``attach``, and the ``ImageBlock`` of each ``@image`` too; ``ImageTooBig`` when one is over the limit."""
    root = project_root.resolve()
    blocks: list[str] = []
    found: list[Attached] = []
    pictures: list[ImageBlock] = []
    seen: set[Path] = set()
    for match in _AT.finditer(text):
        raw = match.group(1).rstrip(".,;:!?)]}'\"")
        path = (root / raw).resolve()
        if path in seen or len(found) >= MAX_FILES or (path != root and root not in path.parents):
            continue
        if images and _image(path, root, found, pictures):
            seen.add(path)
            continue
        read = _read(path)
        if read is None:
            continue
        content, more = read
        seen.add(path)
        cut = more or len(content) > MAX_CHARS
        body = content[:MAX_CHARS] + ("\n[… cut: the rest of the file is not attached]" if cut else "")
        rel = path.relative_to(root).as_posix()
        blocks.append(wrap("file", body.rstrip(), path=rel))
        shown = content[:MAX_CHARS]
        found.append(Attached(rel, shown.count("\n") + (bool(shown) and not shown.endswith("\n")), cut))
    if not blocks:
        return text, found, pictures
    return text + "\n\n" + "\n\n".join(blocks), found, pictures


def _image(path: Path, root: Path, found: list[Attached], pictures: list[ImageBlock]) -> bool:
    """Attach ``path`` when it is an image file; False when it is not one (it may still be text)."""
    from catcode.conversation.images import NotAnImage, is_image_path, load_image

    if not is_image_path(path) or not path.is_file():
        return False
    rel = path.relative_to(root).as_posix()
    try:
        block = load_image(path, rel)  # ImageTooBig propagates: the message is not sent
    except NotAnImage:
        return False
    except OSError:
        return False
    from catcode.conversation.images import size_text

    pictures.append(block)
    found.append(Attached(rel, 0, False, f"{block.source.media_type}, {size_text(path.stat().st_size)}"))
    return True


def _read(path: Path) -> tuple[str, bool] | None:
    """The start of a text file and whether more of it was left unread; None for a binary or unreadable one."""
    try:
        if not path.is_file():
            return None
        with path.open("rb") as handle:
            data = handle.read(MAX_CHARS * 4)
            more = bool(handle.read(1))
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace"), more
