"""``MemoryView``: what the web view's JSON API answers, as plain Python — scopes, memories, one memory, the
change history, one change's diff, revert, search — over a ``MemoryRuntime`` and its ``Recall``. Every answer is
JSON-ready data; every refusal is an ``ApiError`` carrying its HTTP status and one line for the person, worded here
(``refusal``: the page has no commands of its own, so a line naming a memory command names the shell's, as the CLI
says it). Reads run side by side (Starlette runs each handler on a worker thread): the store is thread-safe, git's
reads take no lock, and each search borrows one of a few ``Recall`` objects (one SQLite connection each, as separate
processes would); only a revert waits for the one before it."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from catcode.errors import InvalidMemoryName, MemoryStoreError
from catcode.memory.recall.views import search_dicts
from catcode.memory.revert_tool import NO_CHANGES, describe_revert
from catcode.memory.store.entry_file import INDEX_NAME
from catcode.memory.store.models import MemoryEntry, Scope
from catcode.memory.store.names import validate_name
from catcode.memory.versioning.changes import Change, FileChange, MergedChange, UnknownChange

if TYPE_CHECKING:
    from catcode.memory.recall.recall import Recall
    from catcode.memory.runtime import MemoryRuntime

# Any: the JSON bodies the API answers with.

MAX_HISTORY = 500
MAX_SEARCH = 100  # as ``catcode memory search --limit``
SEARCHES_AT_ONCE = 4  # searches served side by side (each a SQLite connection); more wait for one to finish
SCOPES = tuple(scope.value for scope in Scope)

SHELL_LOG = "catcode memory log"
"""The page has no commands of its own: a refusal that names the change list names the shell's."""


class ApiError(Exception):
    """A request the API refuses: ``status`` is the HTTP status, the message one line for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class MemoryView:
    """The API's answers for the memory of ``runtime`` (store and git); ``recall`` opens search on first use."""

    def __init__(self, runtime: MemoryRuntime, recall: Callable[[], Recall]) -> None:
        self.runtime, self.store, self.git = runtime, runtime.store, runtime.git
        self._open_recall = recall
        self._recalls: list[Recall] = []  # every one opened (closed by ``close``)
        self._idle: queue.SimpleQueue[Recall] = queue.SimpleQueue()  # those no search is using
        self._slots = threading.BoundedSemaphore(SEARCHES_AT_ONCE)
        self._recalls_guard = threading.Lock()
        self._write = threading.Lock()  # one revert at a time; reads never wait for it
        self._folders = {
            Scope.USER: _relative(runtime.paths.user_memory, runtime.paths.memory_root),
            Scope.PROJECT: _relative(runtime.paths.project_memory, runtime.paths.memory_root),
        }

    def scopes(self) -> list[dict[str, Any]]:
        """Both scopes: name, folder and how many memories each holds."""
        located = self.store.located()  # one look at the folders, whatever the number of memories
        return [
            {
                "scope": scope.value,
                "path": str(self.store.dirs[scope]),
                "count": sum(where is scope for _, where in located),
            }
            for scope in Scope
        ]

    def memories(self, scope: str | None) -> list[dict[str, Any]]:
        """Every memory of ``scope`` (both when None), user scope first, by name."""
        wanted = _scope(scope) if scope is not None else None
        found = sorted(self.store.located(), key=lambda pair: (pair[1] is not Scope.USER, pair[0].name))
        return [_entry(entry, scope) for entry, scope in found if wanted in (None, scope)]

    def memory(self, scope: str, name: str) -> dict[str, Any]:
        """One memory with its content."""
        wanted = _scope(scope)
        _name(name)
        entry, where = self.store.get(name), self.store.scope_of(name)  # the scope of the folder holding it
        if entry is None or where is not wanted:
            raise ApiError(
                404, f"No memory {name} in the {wanted.value} scope; /api/memory?scope={wanted.value} lists them."
            )
        return {**_entry(entry, wanted), "content": entry.content}

    def history(self, limit: int, name: str | None) -> list[dict[str, Any]]:
        """The last ``limit`` changes, newest first (only those touching memory ``name`` when given)."""
        if not 1 <= limit <= MAX_HISTORY:
            raise ApiError(400, f"limit must be between 1 and {MAX_HISTORY}, got {limit}")
        paths = () if name is None else tuple(f"{self._folders[s]}/{_name(name)}.md" for s in Scope)
        self._require_versioning()
        return [self._change(c) for c in self.git.log(limit, paths=paths)]

    def change(self, change_id: str) -> dict[str, Any]:
        """One change's diff (``git show --stat --patch``)."""
        self._require_versioning()
        try:
            diff = self.git.diff(change_id)
        except UnknownChange as exc:
            raise ApiError(404, refusal(exc)) from None
        if not diff:
            raise ApiError(404, NO_CHANGES)
        first = diff.split("\n", 1)[0]
        return {"id": first.removeprefix("commit ").strip(), "diff": diff}

    def revert(self, change_id: str) -> dict[str, Any]:
        """Undo a change as a new change, under the same rules and with the same messages as the CLI."""
        with self._write:
            self._require_versioning()
            try:
                result = self.runtime.revert(change_id)
            except UnknownChange as exc:
                raise ApiError(404, refusal(exc)) from None
            except MemoryStoreError as exc:  # a later change to the same memory (a conflict), a merge...
                raise ApiError(409, refusal(exc)) from None
        return {
            "id": result.sha,
            "reverted": result.reverted_sha,
            "message": describe_revert(result),
            "files": [self._file(f) for f in result.files],
        }

    def search(self, query: str, limit: int) -> list[dict[str, Any]]:
        """The same hits as ``catcode memory search --json``, best first."""
        if not query.strip():
            raise ApiError(400, "Give something to search for: /api/search?q=WORDS")
        if not 1 <= limit <= MAX_SEARCH:
            raise ApiError(400, f"limit must be between 1 and {MAX_SEARCH}, got {limit}")
        with self._slots:
            try:
                recall = self._idle.get_nowait()
            except queue.Empty:
                recall = self._open_recall()
                with self._recalls_guard:
                    self._recalls.append(recall)
            try:
                return search_dicts(recall, query, limit)
            finally:
                self._idle.put(recall)

    def close(self) -> None:
        """Close the search index (every connection to it)."""
        with self._recalls_guard:
            recalls, self._recalls = self._recalls, []
        for recall in recalls:
            recall.close()

    # -- helpers -----------------------------------------------------------------------------------------------

    def _change(self, change: Change) -> dict[str, Any]:
        return {
            "id": change.sha,
            "time": change.date.isoformat(),
            "message": change.message,
            "files": [self._file(f) for f in change.files],
        }

    def _file(self, change: FileChange) -> dict[str, Any]:
        path = PurePosixPath(change.path)
        scope = next((s.value for s, folder in self._folders.items() if str(path.parent) == folder), None)
        is_memory = len(path.parts) == 3 and path.suffix == ".md" and path.name != INDEX_NAME
        return {"path": change.path, "status": change.status, "scope": scope, "name": path.stem if is_memory else None}

    def _require_versioning(self) -> None:
        if not self.git.available:
            raise ApiError(503, self.git.warning)


def refusal(exc: MemoryStoreError) -> str:
    """Why a change could not be shown or undone, as the page says it."""
    if isinstance(exc, UnknownChange):
        return f"No memory change '{exc.commit}'; list the changes with {SHELL_LOG} and use one of their ids"
    if isinstance(exc, MergedChange):
        return (
            f"Change {exc.short} '{exc.subject}' joined the changes of two machines; undo those changes one by one "
            f"instead ({SHELL_LOG} lists them)"
        )
    return str(exc)


def _entry(entry: MemoryEntry, scope: Scope) -> dict[str, Any]:
    return {
        "name": entry.name,
        "description": entry.description,
        "type": entry.type.value,
        "scope": scope.value,
        "createdAt": entry.created_at.isoformat(),
        "updatedAt": entry.updated_at.isoformat(),
    }


def _scope(value: str) -> Scope:
    try:
        return Scope(value)
    except ValueError:
        raise ApiError(400, f"Unknown scope {value!r}: use one of {', '.join(SCOPES)}") from None


def _name(name: str) -> str:
    try:
        return validate_name(name)
    except InvalidMemoryName as exc:
        raise ApiError(400, str(exc)) from None


def _relative(folder: Path, root: Path) -> str:
    return Path(folder).relative_to(root).as_posix()
