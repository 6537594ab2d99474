"""The web view's JSON API, the web front end's memory commands: ``ENDPOINTS`` is its one table, each row a path
and how a request is answered by ``MemoryView``, which answers over memory's front door (``memory/service.py``).

| endpoint | answer |
|---|---|
| ``GET /api/scopes`` | both scopes, with their paths and counts |
| ``GET /api/memory?scope=SCOPE`` | the entries of a scope (both without ``scope``) |
| ``GET /api/memory/SCOPE/NAME`` | one entry with its content |
| ``GET /api/memory/history?limit=N&name=NAME`` | the git log, newest first |
| ``GET /api/memory/history/ID`` | that change's diff |
| ``POST /api/memory/revert/ID`` | undo that change, as the CLI does |
| ``GET /api/search?q=…&limit=N`` | the hits of ``catcode memory search --json`` |

Every answer is JSON-ready data; every refusal is an ``ApiError`` carrying its HTTP status and one line for the
person (the page has no commands of its own, so a line naming a memory command names the shell's: ``words.SHELL``).
Reads run side by side (Starlette runs each handler on a worker thread): the store is thread-safe, git's reads take
no lock, and each search borrows one of a few searches of its own (one SQLite connection each, as separate
processes would); only a revert waits for the one before it. ``routes.py`` serves the table."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, NamedTuple

from catcode.errors import InvalidMemoryName, MemoryStoreError
from catcode.memory.service import MemoryDoor, NoSuchMemory, Scope, UnknownChange, VersioningOff
from catcode.memory.words import NO_CHANGES, SHELL, describe_revert, is_memory_file

if TYPE_CHECKING:
    from starlette.requests import Request

    from catcode.memory.service import Change, FileChange, MemoryEntry

# Any: the JSON bodies the API answers with.

DEFAULT_HISTORY = 50
DEFAULT_SEARCH = 10
MAX_HISTORY = 500
MAX_SEARCH = 100  # as ``catcode memory search --limit``
SEARCHES_AT_ONCE = 4  # searches served side by side (each a SQLite connection); more wait for one to finish
SCOPES = tuple(scope.value for scope in Scope)


class ApiError(Exception):
    """A request the API refuses: ``status`` is the HTTP status, the message one line for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class MemoryView:
    """The API's answers for the memory behind ``door``; searches open on first use."""

    def __init__(self, door: MemoryDoor) -> None:
        self.door = door
        self._recalls: list[Any] = []  # every search opened (closed by ``close``)
        self._idle: queue.SimpleQueue[Any] = queue.SimpleQueue()  # those no search is using
        self._slots = threading.BoundedSemaphore(SEARCHES_AT_ONCE)
        self._recalls_guard = threading.Lock()
        self._write = threading.Lock()  # one revert at a time; reads never wait for it
        self._folders = door.relative_folders

    def scopes(self) -> list[dict[str, Any]]:
        """Both scopes: name, folder and how many memories each holds."""
        located = self.door.located()  # one look at the folders, whatever the number of memories
        folders = self.door.folders
        return [
            {"scope": scope.value, "path": str(folders[scope]), "count": sum(where is scope for _, where in located)}
            for scope in Scope
        ]

    def memories(self, scope: str | None) -> list[dict[str, Any]]:
        """Every memory of ``scope`` (both when None), user scope first, by name."""
        wanted = _scope(scope) if scope is not None else None
        return [_entry(entry, where) for entry, where in self.door.located(wanted)]

    def memory(self, scope: str, name: str) -> dict[str, Any]:
        """One memory with its content."""
        wanted = _scope(scope)
        _name(name)
        try:
            shown = self.door.show(name)
        except NoSuchMemory:
            shown = None
        if shown is None or shown.scope is not wanted:  # the scope of the folder holding it
            raise ApiError(
                404, f"No memory {name} in the {wanted.value} scope; /api/memory?scope={wanted.value} lists them."
            )
        return {**_entry(shown.entry, wanted), "content": shown.entry.content}

    def history(self, limit: int, name: str | None) -> list[dict[str, Any]]:
        """The last ``limit`` changes, newest first (only those touching memory ``name`` when given)."""
        if not 1 <= limit <= MAX_HISTORY:
            raise ApiError(400, f"limit must be between 1 and {MAX_HISTORY}, got {limit}")
        if name is not None:
            _name(name)
        with _refused():
            return [self._change(c) for c in self.door.log(limit, everything=True, name=name)]

    def change(self, change_id: str) -> dict[str, Any]:
        """One change's diff (``git show --stat --patch``)."""
        with _refused():
            diff = self.door.diff(change_id)
        if not diff:
            raise ApiError(404, NO_CHANGES)
        first = diff.split("\n", 1)[0]
        return {"id": first.removeprefix("commit ").strip(), "diff": diff}

    def revert(self, change_id: str) -> dict[str, Any]:
        """Undo a change as a new change, under the same rules and with the same messages as the CLI."""
        with self._write, _refused():
            result = self.door.revert(change_id)
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
                recall = self.door.open_recall()
                with self._recalls_guard:
                    self._recalls.append(recall)
            try:
                return [hit.as_dict() for hit in self.door.search(query, limit, recall=recall).hits]
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
        return {
            "path": change.path,
            "status": change.status,
            "scope": scope,
            "name": path.stem if is_memory_file(path) else None,
        }


@contextmanager
def _refused() -> Iterator[None]:
    """The front door's refusals as the API's: versioning off 503, an unknown change 404, a conflict 409."""
    try:
        yield
    except VersioningOff as exc:
        raise ApiError(503, str(exc)) from None
    except UnknownChange as exc:
        raise ApiError(404, refusal(exc)) from None
    except MemoryStoreError as exc:  # a later change to the same memory (a conflict), a merge...
        raise ApiError(409, refusal(exc)) from None


def refusal(exc: MemoryStoreError) -> str:
    """Why a change could not be shown or undone, as the page says it (naming the shell's commands)."""
    return SHELL.error_line(exc)


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
        return MemoryDoor.valid_name(name)
    except InvalidMemoryName as exc:
        raise ApiError(400, str(exc)) from None


def _int(request: Request, key: str, default: int) -> int:
    raw = request.query_params.get(key)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ApiError(400, f"{key} must be a whole number, got {raw!r}") from None


class Endpoint(NamedTuple):
    """One endpoint: its path, how ``MemoryView`` answers a request to it, and the one method it takes when that is
    not GET (any other gets 405 from it, rather than falling through to a later path)."""

    path: str
    answer: Callable[[MemoryView, Request], Any]
    method: str = "GET"


ENDPOINTS = [  # the history paths before {scope}/{name}, which would match them too
    Endpoint("/api/scopes", lambda view, request: view.scopes()),
    Endpoint("/api/memory", lambda view, request: view.memories(request.query_params.get("scope"))),
    Endpoint(
        "/api/memory/history",
        lambda view, request: view.history(
            _int(request, "limit", DEFAULT_HISTORY), request.query_params.get("name") or None
        ),
    ),
    Endpoint("/api/memory/history/{change_id}", lambda view, request: view.change(request.path_params["change_id"])),
    Endpoint(
        "/api/memory/revert/{change_id}", lambda view, request: view.revert(request.path_params["change_id"]), "POST"
    ),
    Endpoint(
        "/api/memory/{scope}/{name}",
        lambda view, request: view.memory(request.path_params["scope"], request.path_params["name"]),
    ),
    Endpoint(
        "/api/search",
        lambda view, request: view.search(request.query_params.get("q", ""), _int(request, "limit", DEFAULT_SEARCH)),
    ),
]
"""Every endpoint of the API, in the order a request's path is matched."""
