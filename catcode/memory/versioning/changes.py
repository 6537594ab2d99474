"""What memory versioning reports: the changes of ``GitStore.log`` with the files each touched, what an undo did,
and the conflict that stops one. Plain data, so that the tool, the slash commands and the CLI can show them."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from catcode.errors import MemoryStoreError


class FileChange(BaseModel):
    """One file touched by a change: ``status`` is A (added), M (modified) or D (deleted)."""

    status: str
    path: str  # relative to the memory root, with forward slashes


class Change(BaseModel):
    """One commit of the memory repository, newest first in ``GitStore.log``."""

    sha: str
    short_sha: str
    date: datetime
    message: str  # the full message; ``subject`` is its first line
    files: list[FileChange]

    @property
    def subject(self) -> str:
        """First line of the message."""
        return self.message.split("\n", 1)[0]


class RevertResult(BaseModel):
    """What an undo did: the new commit, the change it undid, and the files it changed (to rebuild indexes)."""

    sha: str
    short_sha: str
    reverted_sha: str
    message: str
    files: list[FileChange]


class RevertConflict(MemoryStoreError):
    """A later change touched the same memory files, so the undo was abandoned and nothing was changed."""

    def __init__(self, message: str, files: list[str]) -> None:
        super().__init__(message)
        self.files = files


class UnknownChange(MemoryStoreError):
    """No change has the id ``commit`` (a mistyped id, or one of another repository). The message names the
    REPL's ``/memory log``, as the model's ``memory_revert`` tool says it; other front ends word it themselves."""

    def __init__(self, commit: str) -> None:
        super().__init__(f"No memory change '{commit}'; list the changes with /memory log and use one of their ids")
        self.commit = commit


class MergedChange(MemoryStoreError):
    """The change ``short`` joined the changes of two machines: it cannot be undone as one. The message names the
    REPL's ``/memory log``, as ``UnknownChange`` does."""

    def __init__(self, short: str, subject: str) -> None:
        super().__init__(
            f"Change {short} '{subject}' joined the changes of two machines; undo those changes one by one "
            "instead (/memory log lists them)"
        )
        self.short, self.subject = short, subject


def parse_name_status(text: str) -> list[FileChange]:
    """Parse ``--name-status -z`` output: status and path alternate, NUL-separated."""
    tokens = [t for t in text.lstrip("\x00\n").split("\x00") if t]
    return [
        FileChange(status="M" if status[0] == "T" else status[0], path=path)
        for status, path in zip(tokens[::2], tokens[1::2], strict=False)
    ]
