"""``Glob`` and ``Grep`` over the project's files (Claude Code's names and input shapes; catcode's earlier
``list_files`` and ``grep`` calls are read as them).

Both see the same files: in a git repository what ``git ls-files`` reports (tracked plus untracked, minus
ignored), elsewhere a walk that skips the usual bulky directories. ``.git`` is never listed. A symlink whose real
target lies outside what ``read_file`` may read (a link to ``~/.netrc`` in a cloned repository) is neither listed
nor searched: both tools apply ``Read``'s real-path confinement to every file."""

from __future__ import annotations

import os
import re
import subprocess
import threading
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, Field

from catcode import programs
from catcode.errors import ToolError
from catcode.log import get_logger
from catcode.tools.base import ToolContext, ToolResult, tool
from catcode.tools.files import BINARY_SNIFF_BYTES
from catcode.tools.paths import display_path, readable, resolve_path

log = get_logger(__name__)

SKIPPED_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", ".mypy_cache", ".pytest_cache"})
MAX_LISTED = 500
MAX_GREP_LINE_CHARS = 400
DEFAULT_GREP_LINES = 200  # matching lines shown when the call sets no head_limit
MAX_GREP_FILE_BYTES = 10 * 1024 * 1024  # bigger files are data, not code worth grepping
GIT_TIMEOUT_S = 30


def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a path glob: ``**`` spans directories, ``*`` and ``?`` stay within one, ``[...]`` and
    ``{a,b}`` work as in a shell. Match it against a relative POSIX path with ``fullmatch``."""
    return re.compile(_translate(pattern.removeprefix("./")))


def _translate(pattern: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : end]
            body = "^" + body[1:] if body.startswith("!") else body
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        elif char == "{" and (end := pattern.find("}", i)) != -1:
            out.append("(?:" + "|".join(_translate(part) for part in pattern[i + 1 : end].split(",")) + ")")
            i = end + 1
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


def project_files(directory: Path, cancel: threading.Event | None = None) -> list[str]:
    """Files under ``directory`` as sorted relative POSIX paths, without ``.git`` and git-ignored files."""
    files = _git_files(directory)
    if files is None:
        files = _walk_files(directory, cancel or threading.Event())
    return sorted(files)


def _git_files(directory: Path) -> list[str] | None:
    """What git sees under ``directory``, or None when it is not in a work tree (or git is missing)."""
    try:
        proc = subprocess.run(
            [programs.require("git"), "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=directory,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.info("git_ls_files_unavailable", error=str(exc))
        return None
    if proc.returncode != 0:
        return None
    names = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    # --cached still lists files deleted from the work tree, and submodules show up as directories.
    return [n for n in names if n and os.path.lexists(directory / n) and not (directory / n).is_dir()]


def _walk_files(directory: Path, cancel: threading.Event) -> list[str]:
    found: list[str] = []
    for root, dirs, files in os.walk(directory):
        if cancel.is_set():
            break
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS]
        rel = Path(root).relative_to(directory)
        found.extend((rel / name).as_posix() for name in files)
    return found


def _search_dir(raw: str, ctx: ToolContext) -> Path:
    directory = resolve_path(raw, ctx, write=False)
    if not directory.exists():
        raise ToolError(f"Directory not found: {display_path(directory, ctx)}")
    return directory


class ListFilesInput(BaseModel):
    """Input of ``Glob``."""

    pattern: str = Field("**/*", description="Glob relative to path: ** spans directories, * does not.")
    path: str = Field(".", description="Directory to search, relative to the project root or absolute.")


@tool("Glob", key_arg="pattern")
def list_files(args: ListFilesInput, ctx: ToolContext) -> ToolResult:
    """List files whose path matches a glob, e.g. "**/*.py" or "src/*.{ts,tsx}". Skips .git and files
    ignored by git. Paths are shown relative to the project root, sorted, at most 500."""
    directory = _search_dir(args.path, ctx)
    if not directory.is_dir():
        raise ToolError(f"{display_path(directory, ctx)} is a file, not a directory; use Read to read it.")
    regex = glob_regex(args.pattern)
    found = [rel for rel in project_files(directory, ctx.cancel) if regex.fullmatch(rel)]
    matched = [rel for rel in found if readable(directory / rel, ctx)]
    outside = _outside_note(len(found) - len(matched))
    if not matched:
        return ToolResult(f"No files match {args.pattern} under {display_path(directory, ctx)}{outside}")
    lines = [display_path(directory / rel, ctx) for rel in matched[:MAX_LISTED]]
    if len(matched) > MAX_LISTED:
        lines.append(f"… {len(matched) - MAX_LISTED} more; use a narrower pattern or path to see them")
    return ToolResult("\n".join(lines) + outside)


def _outside_note(count: int) -> str:
    return f"\n({count} symlink(s) leading outside the project left out)" if count else ""


FILE_TYPES = {"js": "*.{js,jsx,mjs,cjs}", "ts": "*.{ts,tsx}", "py": "*.{py,pyi}", "rust": "*.rs", "go": "*.go",
              "java": "*.java", "c": "*.{c,h}", "cpp": "*.{cc,cpp,cxx,h,hpp}", "md": "*.{md,markdown}"}  # fmt: skip
"""``Grep``'s ``type`` (ripgrep's file types) as a glob; any other type ``t`` is ``*.t``."""


class GrepInput(BaseModel):
    """Input of ``Grep``."""

    pattern: str = Field(description="Python regular expression searched for in each line.")
    path: str = Field(".", description="File or directory to search, relative to the project root or absolute.")
    glob: str | None = Field(None, description='Only files matching this glob, e.g. "*.py" (any depth) or "src/**".')
    type: str | None = Field(None, description='File type, e.g. "py", "js".')
    output_mode: Literal["files_with_matches", "content", "count"] = Field(
        "files_with_matches", description="The files, each matching line (path:line: text), or counts per file."
    )
    ignore_case: bool = Field(False, validation_alias=AliasChoices("-i", "ignore_case"), description="Ignore case.")
    head_limit: int | None = Field(
        None, ge=1, le=2000, validation_alias=AliasChoices("head_limit", "max_results"), description="At most N."
    )


def _grep_legacy(name: str, raw: dict[str, Any]) -> dict[str, Any]:
    """catcode's earlier ``grep``: matching lines by default, ``ignore_case`` and ``max_results``."""
    if name == "grep" and "output_mode" not in raw:
        return {**raw, "output_mode": "content"}
    return raw


def _grep_targets(target: Path, glob: str | None, ctx: ToolContext) -> list[Path]:
    if target.is_file():
        return [target]
    files = project_files(target, ctx.cancel)
    if glob:
        regex = glob_regex(glob)
        # Like ripgrep: a glob without a slash matches the file name at any depth.
        files = [f for f in files if regex.fullmatch(f if "/" in glob else f.rsplit("/", 1)[-1])]
    return [target / f for f in files]


def _searchable_text(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_GREP_FILE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:BINARY_SNIFF_BYTES]:
        return None
    return data.decode("utf-8", "replace")


@tool("Grep", key_arg="pattern", legacy=_grep_legacy)
def grep(args: GrepInput, ctx: ToolContext) -> ToolResult:
    """Search file contents with a Python regular expression (output_mode: the matching files by default, or
    "content" for the lines). Skips binary files, .git and files ignored by git; narrow with path, glob or type."""
    try:
        regex = re.compile(args.pattern, re.IGNORECASE if args.ignore_case else 0)
    except re.error as exc:
        raise ToolError(f"Invalid regular expression {args.pattern!r}: {exc}") from None
    target = _search_dir(args.path, ctx)
    content = args.output_mode == "content"
    limit = args.head_limit or (DEFAULT_GREP_LINES if content else MAX_LISTED)
    glob = args.glob or (FILE_TYPES.get(args.type, f"*.{args.type}") if args.type else None)
    hits: list[str] = []
    wanted = limit + 1  # one more than shown, to know whether there are more
    outside = denied = 0
    for path in _grep_targets(target, glob, ctx):
        if ctx.cancel.is_set() or len(hits) >= wanted:
            break
        if not readable(path, ctx):
            outside += 1
            continue
        if ctx.read_denied is not None and ctx.read_denied(path):
            denied += 1
            continue
        text = _searchable_text(path)
        if text is None:
            continue
        shown = display_path(path, ctx)
        matched = 0
        for lineno, line in enumerate(text.splitlines(), start=1):
            if regex.search(line):
                matched += 1
                if not content:
                    continue
                if len(line) > MAX_GREP_LINE_CHARS:
                    line = line[:MAX_GREP_LINE_CHARS] + " …"
                hits.append(f"{shown}:{lineno}: {line}")
                if len(hits) >= wanted:
                    break
        if matched and not content:
            hits.append(shown if args.output_mode == "files_with_matches" else f"{shown}:{matched}")
    where = display_path(target, ctx)
    notes = _outside_note(outside) + (f"\n({denied} file(s) a deny rule keeps from reading left out)" if denied else "")
    if not hits:
        return ToolResult(f"No matches for {args.pattern!r} under {where}{notes}")
    if len(hits) > limit:
        del hits[limit:]
        hits.append(f"… stopped at {limit}; narrow the pattern, path or glob to see the rest")
    return ToolResult("\n".join(hits) + notes)
