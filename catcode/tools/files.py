"""``Read``, ``Write`` and ``Edit`` (Claude Code's names and input shapes; catcode's earlier ``read_file``,
``write_file`` and ``edit_file`` with ``path`` are read as them).

Writes are atomic (a killed process leaves the old file or the new one) and keep the file's mode. Both
writing tools have a ``preview`` that renders the change as a unified diff for the approval prompt."""

from __future__ import annotations

import difflib
import stat
from pathlib import Path

from pydantic import AliasChoices, BaseModel, Field

from catcode.errors import ToolError
from catcode.fsutil import atomic_write_bytes
from catcode.tools.base import ToolContext, ToolResult, renamed, tool
from catcode.tools.paths import display_path, resolve_path

BINARY_SNIFF_BYTES = 8192
MAX_LINE_CHARS = 2000
MAX_PREVIEW_LINES = 400
NEW_FILE_MODE = 0o644
FILE_PATH = renamed({"path": "file_path"})  # catcode's earlier shape, for rules and hooks that read the raw input
EARLIER = AliasChoices("file_path", "path")  # and for the input model itself


def is_binary(path: Path) -> bool:
    """A NUL byte in the first 8 KB: the same heuristic git and grep use."""
    with path.open("rb") as fh:
        return b"\0" in fh.read(BINARY_SNIFF_BYTES)


def _existing_file(path: Path, ctx: ToolContext) -> Path:
    shown = display_path(path, ctx)
    if not path.exists():
        raise ToolError(f"File not found: {shown}")
    if path.is_dir():
        raise ToolError(f"{shown} is a directory; use Glob to see what it contains.")
    if is_binary(path):
        raise ToolError(f"Refused: {shown} is a binary file ({path.stat().st_size} bytes)")
    return path


def _read_text(path: Path) -> str:
    # surrogateescape round-trips bytes that are not UTF-8, so an edit never corrupts the rest of a file.
    return path.read_bytes().decode("utf-8", "surrogateescape")


def _write_text(path: Path, text: str) -> bool:
    """Write atomically, keeping an existing file's mode; True when the file was created."""
    existed = path.exists()
    mode = stat.S_IMODE(path.stat().st_mode) if existed else NEW_FILE_MODE
    # Created parents get the usual umask-derived modes, not the private 0700 fsutil would use.
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, text.encode("utf-8", "surrogateescape"), mode)
    return not existed


def _line_count(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def unified_diff(before: str, after: str, shown: str, *, new: bool = False) -> str:
    """A unified diff naming ``shown`` in its headers (``/dev/null`` as the old side of a new file)."""
    lines: list[str] = []
    diff = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        "/dev/null" if new else f"a/{shown}",
        f"b/{shown}",
    )
    for line in diff:
        lines.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    if not lines:
        return f"(no changes to {shown})"
    text = "".join(lines).splitlines()
    if len(text) > MAX_PREVIEW_LINES:
        text = [*text[:MAX_PREVIEW_LINES], f"… {len(text) - MAX_PREVIEW_LINES} more diff lines"]
    return "\n".join(text)


class ReadFileInput(BaseModel):
    """Input of ``Read``."""

    file_path: str = Field(
        validation_alias=EARLIER, description="File to read, absolute or relative to the project root."
    )
    offset: int = Field(1, ge=0, description="First line to show (1-based; 0 is the first line too).")
    limit: int = Field(2000, ge=1, description="How many lines to show at most.")


@tool("Read", key_arg="file_path", legacy=FILE_PATH)
def read_file(args: ReadFileInput, ctx: ToolContext) -> ToolResult:
    """Read a text file. Lines are numbered like `cat -n` (number, tab, text); lines longer than 2000
    characters are cut. Use offset and limit to page through long files. An image (PNG, JPEG, GIF, WebP) is shown
    to you as the image itself. Other binary files are refused."""
    target = resolve_path(args.file_path, ctx, write=False)
    image = _image(target, ctx)
    if image is not None:
        return image
    path = _existing_file(target, ctx)
    shown = display_path(path, ctx)
    out: list[str] = []
    total = 0
    offset = max(args.offset, 1)
    with path.open("rb") as fh:
        for total, raw in enumerate(fh, start=1):
            if offset <= total < offset + args.limit:
                text = raw.decode("utf-8", "replace").rstrip("\r\n")
                if len(text) > MAX_LINE_CHARS:
                    text = text[:MAX_LINE_CHARS] + f" … [{len(text) - MAX_LINE_CHARS} more characters cut]"
                out.append(f"{total:>6}\t{text}")
    if total == 0:
        return ToolResult(f"{shown} is empty.")
    if offset > total:
        raise ToolError(f"{shown} has {_plural(total, 'line')}; offset={offset} is past the end.")
    last_shown = offset + len(out) - 1
    if last_shown < total:
        out.append(f"… {_plural(total - last_shown, 'more line')}; use offset={last_shown + 1} to continue")
    return ToolResult("\n".join(out))


def _image(path: Path, ctx: ToolContext) -> ToolResult | None:
    """``Read`` on an image file: the image for the model (``ImageTooBig``: one line, nothing sent); None when
    the file is not an image after all."""
    from catcode.conversation.images import NotAnImage, is_image_path, load_image, size_text

    if not is_image_path(path) or not path.is_file():
        return None
    shown = display_path(path, ctx)
    try:
        block = load_image(path, shown)
    except NotAnImage:
        return None
    size = size_text(path.stat().st_size)
    return ToolResult(f"Image {shown} ({block.source.media_type}, {size}), attached below.", images=[block])


class WriteFileInput(BaseModel):
    """Input of ``Write``."""

    file_path: str = Field(
        validation_alias=EARLIER, description="File to create or overwrite, absolute or relative to the project root."
    )
    content: str = Field(description="The complete new content of the file.")


def _write_target(args: WriteFileInput, ctx: ToolContext) -> Path:
    path = resolve_path(args.file_path, ctx, write=True)
    if path.is_dir():
        raise ToolError(f"{display_path(path, ctx)} is a directory; give a file path.")
    return path


def preview_write(args: WriteFileInput, ctx: ToolContext) -> str | None:
    """The diff ``Write`` would make, or None when it cannot be computed."""
    try:
        path = _write_target(args, ctx)
        shown = display_path(path, ctx)
        if not path.exists():
            return unified_diff("", args.content, shown, new=True)
        if is_binary(path):
            return f"(overwrites the binary file {shown})"
        return unified_diff(_read_text(path), args.content, shown)
    except Exception:
        return None


@tool("Write", preview=preview_write, key_arg="file_path", legacy=FILE_PATH)
def write_file(args: WriteFileInput, ctx: ToolContext) -> ToolResult:
    """Create a file or replace its whole content; missing parent directories are created. To change part
    of an existing file prefer Edit. Always read a file before overwriting it."""
    path = _write_target(args, ctx)
    created = _write_text(path, args.content)
    verdict = "created" if created else "updated"
    return ToolResult(f"Wrote {_plural(_line_count(args.content), 'line')} to {display_path(path, ctx)} ({verdict})")


class EditFileInput(BaseModel):
    """Input of ``Edit``."""

    file_path: str = Field(
        validation_alias=EARLIER, description="File to edit, absolute or relative to the project root."
    )
    old_string: str = Field(description="Exact text to replace, including whitespace and indentation.")
    new_string: str = Field(description="Text to put in its place.")
    replace_all: bool = Field(False, description="Replace every occurrence instead of exactly one.")


def _plan_edit(args: EditFileInput, ctx: ToolContext) -> tuple[Path, str, str, int]:
    """(path, current text, edited text, replacements), or ``ToolError`` saying why the edit cannot apply."""
    path = _existing_file(resolve_path(args.file_path, ctx, write=True), ctx)
    shown = display_path(path, ctx)
    if not args.old_string:
        raise ToolError("old_string is empty; use Write to create or overwrite a whole file.")
    if args.old_string == args.new_string:
        raise ToolError("old_string and new_string are identical; there is nothing to change.")
    text = _read_text(path)
    old, new = args.old_string, args.new_string
    if old not in text and "\r\n" in text and "\n" in old:
        # The model writes \n; a CRLF file needs the same edit with its own line endings.
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
    count = text.count(old)
    if count == 0:
        raise ToolError(
            f"old_string not found in {shown}. It must match exactly, whitespace and indentation included; "
            "read the file again and copy the text from it."
        )
    if count > 1 and not args.replace_all:
        raise ToolError(
            f"old_string matches {count} times in {shown}; add context to make it unique or set replace_all"
        )
    edited = text.replace(old, new) if args.replace_all else text.replace(old, new, 1)
    return path, text, edited, count if args.replace_all else 1


def preview_edit(args: EditFileInput, ctx: ToolContext) -> str | None:
    """The diff ``Edit`` would make, or None when the edit would fail."""
    try:
        path, before, after, _ = _plan_edit(args, ctx)
        return unified_diff(before, after, display_path(path, ctx))
    except Exception:
        return None


@tool("Edit", preview=preview_edit, key_arg="file_path", legacy=FILE_PATH)
def edit_file(args: EditFileInput, ctx: ToolContext) -> ToolResult:
    """Replace an exact string in a file. old_string must occur exactly once (add surrounding lines to make
    it unique) unless replace_all is true. Read the file first so old_string matches it exactly."""
    path, _, edited, count = _plan_edit(args, ctx)
    _write_text(path, edited)
    return ToolResult(f"Edited {display_path(path, ctx)}: {_plural(count, 'replacement')}")
