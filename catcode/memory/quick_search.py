"""The quick search: ``catcode memory search`` answered by a fresh process from the search index alone — sqlite3 and
recall's query code, none of the door's imports (settings, pydantic, the store, git) — and only when that answer is
the one the full search would give; otherwise (``answer`` returns None) the full search runs.

What the full search knows from the settings (which folders, which index, which catalogues) it leaves in a small
record, ``$CATCODE_HOME/cache/quick-search/<project key>.json`` (``remember``), with what it depends on: the stat of
every settings file and of the consent record, the environment variables settings are read from, and the stat of
catcode's code that the full search ran (and its libraries'). ``answer`` uses the record only while all of those
are unchanged, and then checks the state itself, with the store's and ``Recall``'s own rules (``store/file_keys.py``,
``recall/marks.py``): each memory folder still lists what its catalogue recorded (a small folder is stat'ed whole,
as the full search does), facts.db was synced to what the catalogues, the journal and the conversation log hold now,
and every memory found is unchanged on disk. A missing, stale or locked index, a file written by hand, a setting
changed: the full search, which brings everything in step first.

Without a record (a fresh home, a retention of turns, a project named by its git remote) every search is the full
one."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catcode.memory.recall.facts_schema import SCHEMA_VERSION
from catcode.memory.recall.facts_search import search_facts
from catcode.memory.recall.hit_text import search_json_lines, search_text, unreadable_line
from catcode.memory.recall.marks import PARTS, journal_fingerprint, sources_fingerprint, synced_digests
from catcode.memory.recall.query import parse_query
from catcode.memory.store.file_keys import (
    VERIFY_BUDGET,
    catalog_fingerprint,
    dir_key,
    listing_settled,
    memory_files,
    signature,
    stat_key,
)
from catcode.settings.paths import catcode_home, find_project_root, project_key

if TYPE_CHECKING:
    from catcode.memory.recall.facts_schema import Hit
    from catcode.memory.recall.recall import Recall
    from catcode.memory.runtime import MemoryRuntime

__all__ = ["QuickAnswer", "answer", "forget", "record_path", "remember"]

FORMAT = 1
SCOPES = ("user", "project")
"""The scopes in the catalogues' order (``Scope``)."""
ENV_PREFIXES = ("CATCODE_", "CLAUDE_")
ENV_NAMES = ("HOME", "USER", "LOGNAME", "LNAME", "USERNAME")
"""The environment the settings and paths are read from (``CATCODE_*`` variables, Claude Code's folder, the home and
the login name). The API's (``ANTHROPIC_*``) is not: no search reads it, and a script's ``catcode -p`` has it where
the search after it may not."""
LIBRARIES = ("yaml", "_yaml", "pydantic", "pydantic_core")
"""Libraries whose code decides what reading a memory file gives (``catalog.code_stamp``)."""


@dataclass(frozen=True)
class QuickAnswer:
    """What ``catcode memory search`` prints: ``out`` on stdout, ``err`` (lines) on stderr."""

    out: list[str]
    err: list[str]


# -- the record the full search leaves -----------------------------------------------------------------------------


def record_path(home: Path, root: Path) -> Path:
    """Where the record of the project at ``root`` is kept."""
    return home / "cache" / "quick-search" / f"{project_key(root)}.json"


def remember(runtime: MemoryRuntime, recall: Recall) -> None:
    """Leave (or refresh) the record of this project after a full search found everything in step; remove it
    where the quick search cannot answer as the full one would. Never raises: the record only saves time."""
    from catcode.log import get_logger

    try:
        _remember(runtime, recall)
    except Exception:
        get_logger(__name__).warning("quick_search_record_not_saved", exc_info=True)


def forget(runtime: MemoryRuntime) -> None:
    """Remove the record of this project (the next search is the full one)."""
    paths = runtime.paths
    record_path(paths.home, paths.project_root).unlink(missing_ok=True)


def _remember(runtime: MemoryRuntime, recall: Recall) -> None:
    from catcode.fsutil import atomic_write_text
    from catcode.memory.pipeline.archive import archive_path
    from catcode.settings.consent import CONSENT_FILE
    from catcode.settings.sources import settings_files

    paths, memory = runtime.paths, runtime.settings.memory
    catalogs = recall.store.catalog_files()
    if catalogs is None or memory.search_retention_days is not None or memory.project_key != "path":
        forget(runtime)  # a catalogue in memory; turns dropped by the day; a key from git: the full search
        return
    settings = [str(f.path) for f in settings_files(paths.home, paths.project_root)]
    settings.append(str(paths.home / CONSENT_FILE))
    skip = sorted(runtime.settings.env)  # set by the settings themselves (``launch.apply_env``)
    record = {
        "format": FORMAT,
        "python": [sys.hexversion, sys.executable],
        "root": str(paths.project_root),
        "env_skip": skip,
        "env": _environment(os.environ, skip),
        "settings": {path: _stamp(path) for path in settings},
        "code": {path: _stamp(path) for path in _code_files()},
        "facts_db": str(paths.facts_db),
        "history": str(paths.history_file),
        "archive": str(archive_path(paths.history_file)),
        "journal": str(recall.journal.root),
        "folders": {scope.value: str(recall.store.dirs[scope]) for scope in catalogs},
        "catalogs": {scope.value: [str(file), code] for scope, (file, code) in catalogs.items()},
    }
    where = record_path(paths.home, paths.project_root)
    text = json.dumps(record, sort_keys=True)
    try:
        if where.read_text(encoding="utf-8") == text:
            return
    except OSError:
        pass
    where.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    atomic_write_text(where, text)


def _code_files() -> list[str]:
    """The file of every module of catcode and of the libraries that read memory files loaded now, at the end of a
    full search: the code whose change could make the full search answer otherwise (one it did not load took no
    part in its answer)."""
    found = set()
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] in ("catcode", *LIBRARIES) and getattr(module, "__file__", None):
            found.add(str(module.__file__))
    return sorted(found)


def _stamp(path: str) -> list[int] | None:
    """The file's stat key (``file_keys.stat_key``) as the record's JSON holds it."""
    key = stat_key(path)
    return list(key) if key is not None else None


def _environment(env: Any, skip: list[str]) -> list[list[str]]:
    return sorted(
        [name, value]
        for name, value in env.items()
        if (name.startswith(ENV_PREFIXES) or name in ENV_NAMES) and name not in skip
    )


# -- answering from it ---------------------------------------------------------------------------------------------


def answer(query: str, limit: int, *, as_json: bool = False, cwd: Path | None = None) -> QuickAnswer | None:
    """What ``catcode memory search QUERY --limit LIMIT [--json]`` prints, when the index can answer it as the full
    search would; None otherwise (the full search runs)."""
    try:
        found = _search(query, limit, cwd or Path.cwd())
    except (OSError, ValueError, sqlite3.Error):
        return None
    if found is None:
        return None
    hits, unreadable = found
    out = search_json_lines(hits) if as_json else [search_text(query, hits)]
    return QuickAnswer(out, [unreadable_line(unreadable)] if unreadable else [])


def _search(query: str, limit: int, cwd: Path) -> tuple[list[Hit], int] | None:
    home, root = catcode_home(), find_project_root(cwd)
    record = _record(home, root)
    if record is None:
        return None
    catalogs = sqlite3.connect(":memory:", isolation_level=None)
    try:
        for scope in SCOPES:
            catalogs.execute(f"ATTACH DATABASE ? AS scope_{scope}", (record["catalogs"][scope][0],))
        catalogs.execute("BEGIN")  # one snapshot of both
        if not all(_folder_in_step(catalogs, scope, record) for scope in SCOPES):
            return None
        memories = catalog_fingerprint(catalogs, [f"scope_{scope}" for scope in SCOPES])
        documents = sources_fingerprint(
            memories, journal_fingerprint(Path(record["journal"])), Path(record["history"]), Path(record["archive"])
        )
        hits = _search_index(Path(record["facts_db"]), synced_digests((*documents, "")), query, limit)
        if hits is None or not all(_unchanged(catalogs, record, hit.source_id) for hit in hits if hit.kind == "memory"):
            return None
        unreadable = sum(
            catalogs.execute(f"SELECT count(*) FROM scope_{scope}.files WHERE problem IS NOT NULL").fetchone()[0]
            for scope in SCOPES
        )
        return hits, unreadable
    finally:
        catalogs.close()


def _record(home: Path, root: Path) -> dict[str, Any] | None:
    """The record of the project at ``root``, when nothing it depends on changed since it was left."""
    try:
        record = json.loads(record_path(home, root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (
        not isinstance(record, dict)
        or record.get("format") != FORMAT
        or record.get("root") != str(root)
        or record.get("python") != [sys.hexversion, sys.executable]
        or record.get("env") != _environment(os.environ, record.get("env_skip", []))
    ):
        return None
    for stamps in (record["settings"], record["code"]):
        if any(_stamp(path) != stamp for path, stamp in stamps.items()):
            return None
    return record


def _folder_in_step(catalogs: sqlite3.Connection, scope: str, record: dict[str, Any]) -> bool:
    """Whether ``scope``'s catalogue holds what its folder holds, by the store's rules (``DiskCache._check``): it
    was written by this code, the folder's listing was last found to match it a tick after the folder's last
    change, and (a small folder, stat'ed whole by every process's first look) no file changed in place."""
    query = f"SELECT key, value FROM scope_{scope}.meta WHERE key IN ('code', 'listing', 'names')"
    meta = dict(catalogs.execute(query))
    if "code" not in meta or json.loads(meta["code"]) != record["catalogs"][scope][1]:
        return False
    folder = Path(record["folders"][scope])
    listing, key = json.loads(meta.get("listing") or "null"), dir_key(folder)
    if listing is None or listing[0] != key or not listing_settled(listing[1], key):
        return False
    if (json.loads(meta.get("names") or "[0]"))[0] > VERIFY_BUDGET:
        return True
    rows = {
        fname: (ino, sig, settled)
        for fname, ino, sig, settled in catalogs.execute(f"SELECT fname, ino, sig, settled FROM scope_{scope}.files")
    }
    listed = memory_files(folder)
    if len(listed) != len(rows):
        return False
    for fname, path, inode, is_link in listed:
        row = rows.get(fname)
        if row is None or row != (inode, signature(stat_key(path, link=is_link)), 1):
            return False
    return True


def _search_index(facts_db: Path, digests: list[str], query: str, limit: int) -> list[Hit] | None:
    """The hits of ``query`` in facts.db, when it was synced to ``digests`` (None otherwise, or when it is
    missing, of another schema or locked)."""
    if not facts_db.is_file():
        return None
    conn = sqlite3.connect(f"{facts_db.absolute().as_uri()}?mode=ro", uri=True, isolation_level=None)
    try:
        conn.execute("PRAGMA busy_timeout = 0")  # held by a writer: the full search (which waits its turn)
        conn.execute("PRAGMA mmap_size = 268435456")  # as ``FactsIndex``: reads skip a pread() per page
        conn.execute("BEGIN")  # the marks and the search see one snapshot
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        marks = dict(conn.execute("SELECT key, value FROM meta WHERE key LIKE 'mark:synced-%'"))
        if version is None or version[0] != SCHEMA_VERSION:
            return None
        if [marks.get(f"mark:{part}") for part in PARTS] != digests:
            return None
        parsed = parse_query(query)
        return [] if parsed.empty or limit <= 0 else search_facts(conn, parsed, limit, "")
    finally:
        conn.close()


def _unchanged(catalogs: sqlite3.Connection, record: dict[str, Any], name: str) -> bool:
    """Whether the memory ``name``'s files are as the catalogues recorded them (``DiskCache.fresh``: else the full
    search reads it again and asks again)."""
    fname = f"{name}.md"
    for scope in SCOPES:
        row = catalogs.execute(f"SELECT stat, settled FROM scope_{scope}.files WHERE fname = ?", (fname,)).fetchone()
        path = os.path.join(record["folders"][scope], fname)
        if row is None:
            if os.path.lexists(path):
                return False
            continue
        key = stat_key(path, link=os.path.islink(path))
        if not row[1] or row[0] is None or key is None or list(key) != json.loads(row[0]):
            return False
    return True
