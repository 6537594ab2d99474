"""A memory writer in a process of its own, for the crash and concurrency tests and scripts/bench_concurrency.py.

    python tests/memory/store/writer_process.py <memory_root> <mode> [options]

It builds the store as memory/runtime.py does (user ``u1``, ``--project``, ``redact``, ``GitStore`` on the root, lock
``<root>/.write.lock``) and prints one line per event straight to the pipe, so a parent that kills it at any
moment still knows what had finished: ``ready`` (with --barrier, then it waits for a line on stdin),
``child <pid>``, ``begin {"op", "why", "writes": {name: content or null}}``, ``done {"op", "changed",
"seconds"}`` (written, indexed and committed), ``exit <run> <wait status>``, ``read {...}``.

Modes: ``write`` (``--count`` distinct memories), ``update`` (``--name`` again and again), ``mixed`` (random
saves, updates, deletes and apply batches until killed), ``serve`` (per ``run <id> <seed>`` line on stdin,
fork a mixed writer in its own process group and report its exit: 200 kills cost 200 forks, not 200
interpreter start-ups), ``read`` (check the indexes and load the store until a line arrives on stdin).
Warnings and errors go to stderr as JSON lines; nothing else is logged. The parent's half (``Writer``,
``open_store``, ``consistency_problems``) is imported by the tests and the bench."""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import re
import select
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from catcode.memory.store import entry_file
from catcode.memory.store.entry_file import INDEX_NAME, EntryParseError
from catcode.memory.store.models import (
    AppliedCounts,
    CandidateMemory,
    MemoryAction,
    MemoryEntry,
    MemoryOperation,
    MemoryType,
)
from catcode.memory.store.store import MemoryStore
from catcode.memory.versioning.git_store import GitStore
from catcode.redact import redact
from catcode.text import flatten

SCRIPT = Path(__file__).resolve()
USER = "u1"
CRASH_NAMES = tuple(f"crash-memory-{i:02d}" for i in range(16))
_INDEX_LINE = re.compile(r"- \[([a-z0-9-]+)\]\(\1\.md\) — .*")
_TYPES = list(MemoryType)


# ----- shared by the writer and its parent ------------------------------------------------------------------
def open_store(root: Path, project: str = "p1") -> MemoryStore:
    """The store as memory/runtime.py builds it: both scopes under ``root``, redaction, git versioning, one lock."""
    return MemoryStore(
        root / "users" / USER,
        root / "projects" / project,
        lock_path=root / ".write.lock",
        redactor=redact,
        versioning=GitStore(root),
    )


def index_problems(text: str) -> list[str]:
    """What is wrong with the text of a ``MEMORY.md`` ([] when it is a complete index)."""
    lines = text.split("\n")
    problems = [] if text.endswith("\n") else ["no final newline: cut short"]
    if lines[:2] != [entry_file.INDEX_TITLE, ""]:
        problems.append(f"bad header {lines[:2]!r}")
    body = lines[2:-1]
    problems += [f"bad line {line!r}" for line in body if not _INDEX_LINE.fullmatch(line)]
    names = [line.partition("]")[0][3:] for line in body]
    if names != sorted(names):
        problems.append("lines not sorted by name")
    return problems


def consistency_problems(store: MemoryStore) -> list[str]:
    """Open the store as the next session start does (``reconcile``: what was left uncommitted is recorded, a
    stale index rebuilt), then check every memory file parses and each scope's ``MEMORY.md`` lists exactly the
    memories ``load_all`` returns from that scope."""
    store.reconcile()
    entries = store.load_all()
    problems = []
    for folder in store.dirs.values():
        for path in sorted(folder.glob("*.md")):
            if path.name == INDEX_NAME or path.name.startswith("."):
                continue
            try:
                parsed = entry_file.parse(path.read_bytes())
            except EntryParseError as exc:
                problems.append(f"{path}: {exc.reason}")
                continue
            if parsed.name != path.stem:
                problems.append(f"{path}: holds {parsed.name}")
        expected = [
            f"- [{e.name}]({e.name}.md) — {flatten(e.description)}"
            for e in entries
            if store.path_of(e.name).parent == folder  # type: ignore[union-attr]
        ]
        index = folder / INDEX_NAME
        if not index.exists():
            problems += [f"{index} is missing"] if expected else []
            continue
        text = index.read_text(encoding="utf-8")
        problems += [f"{index}: {p}" for p in index_problems(text)]
        if text.split("\n")[2:-1] != expected:
            problems.append(f"{index} does not list what load_all() returns")
    return problems


class Writer:
    """A writer process seen from its parent: events read with a deadline, so a wedged child fails a test
    instead of hanging it."""

    def __init__(
        self, root: Path, mode: str, *args: str, stderr: Any = subprocess.PIPE, env: dict[str, str] | None = None
    ) -> None:
        command = [sys.executable, str(SCRIPT), str(root), mode, *args]
        pipe = subprocess.PIPE
        self.proc = subprocess.Popen(command, stdin=pipe, stdout=pipe, stderr=stderr, env=env)
        self._buffer = b""

    def send(self, line: str) -> None:
        """Write one line to the writer's stdin."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{line}\n".encode())
        self.proc.stdin.flush()

    def event(self, timeout: float) -> tuple[str, Any] | None:
        """The next ``(kind, payload)`` line, or None when none arrives within ``timeout`` seconds (or at EOF)."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.proc.stdout], [], [], remaining)[0]:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                return None
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\n")
        kind, _, rest = raw.decode("utf-8").partition(" ")
        return kind, (json.loads(rest) if kind in ("begin", "done", "read") else rest)

    def expect(self, kind: str, timeout: float, seen: list[tuple[str, Any]] | None = None) -> Any:
        """Read events until one of ``kind``; the others are appended to ``seen``. Fails after ``timeout``, or at
        once when a forked writer exits first."""
        deadline = time.monotonic() + timeout
        while (got := self.event(max(0.0, deadline - time.monotonic()))) is not None:
            if got[0] == kind:
                return got[1]
            if got[0] == "exit":
                raise AssertionError(f"the writer exited (run, wait status: {got[1]}) before a {kind!r} line")
            if seen is not None:
                seen.append(got)
        raise AssertionError(f"no {kind!r} line from the writer within {timeout:.0f}s (exit {self.proc.poll()})")

    def finish(self, timeout: float) -> tuple[list[tuple[str, Any]], str]:
        """Wait for the writer to exit; every event it printed (not yet read) and its stderr."""
        events = []
        while (got := self.event(timeout)) is not None:
            events.append(got)
        _, stderr = self.proc.communicate(timeout=timeout)
        return events, (stderr or b"").decode("utf-8", "replace")


# ----- the writer ------------------------------------------------------------------------------------------------
def _emit(kind: str, payload: Any = None) -> None:
    """One line straight to the pipe (no buffer left behind by a kill; short lines are written atomically)."""
    text = kind if payload is None else f"{kind} {payload if isinstance(payload, str) else json.dumps(payload)}"
    os.write(1, f"{text}\n".encode())


def _run_op(op: str, writes: dict[str, str | None], action: Callable[[str], AppliedCounts | bool]) -> None:
    """Announce an operation, run it with why ``op-<op>``, report it done and whether it changed anything."""
    _emit("begin", {"op": op, "why": f"op-{op}", "writes": writes})
    started = time.perf_counter()
    result = action(f"op-{op}")
    changed = result if isinstance(result, bool) else result.added + result.updated + result.deleted > 0
    _emit("done", {"op": op, "changed": changed, "seconds": round(time.perf_counter() - started, 6)})


def _entry(name: str, kind: MemoryType, content: str) -> MemoryEntry:
    return MemoryEntry(name=name, description=f"{name}: {content.splitlines()[0]}", type=kind, content=content)


def write_distinct(store: MemoryStore, prefix: str, count: int) -> None:
    """``count`` new memories ``<prefix>-000``…, of all four types (so both scope folders are written)."""
    for i in range(count):
        entry = _entry(f"{prefix}-{i:03d}", _TYPES[i % 4], f"{prefix} memory {i}\nwritten by {os.getpid()}")
        _run_op(f"{prefix}-{i}", {entry.name: entry.content}, lambda why, e=entry: store.update(e, why=why))


def update_one(store: MemoryStore, name: str, tag: str, count: int) -> None:
    """``count`` updates of the user memory ``name``, content ``<tag> update <i>``."""
    for i in range(count):
        entry = _entry(name, MemoryType.USER, f"{tag} update {i}")
        _run_op(f"{tag}-{i}", {name: entry.content}, lambda why, e=entry: store.update(e, why=why))


def write_mixed(store: MemoryStore, rng: random.Random, run: str) -> None:
    """Random updates, deletes and apply batches over ``CRASH_NAMES``, forever (until killed).

    Types are random, so updates also move memories between the scopes."""
    for n in itertools.count():
        op, roll = f"{run}-{n}", rng.random()
        if roll < 0.6:
            entry = _entry(rng.choice(CRASH_NAMES), rng.choice(_TYPES), f"{op} {rng.random():.6f}\nsecond line ✓")
            _run_op(op, {entry.name: entry.content}, lambda why, e=entry: store.update(e, why=why))
        elif roll < 0.7:
            name = rng.choice(CRASH_NAMES)
            _run_op(op, {name: None}, lambda why, n=name: store.delete(n, why=why))
        else:
            operations, writes = _batch(rng, op)
            _run_op(op, writes, lambda why, ops=operations: store.apply(ops, why=why))


def _batch(rng: random.Random, op: str) -> tuple[list[MemoryOperation], dict[str, str | None]]:
    """2–6 consolidation decisions (ADD, UPDATE of a target, SKIP) and what they write."""
    operations, writes = [], {}
    for j in range(rng.randint(2, 6)):
        action = rng.choices(list(MemoryAction), weights=(5, 4, 1))[0]
        name, target = rng.choice(CRASH_NAMES), rng.choice(CRASH_NAMES)
        content = f"{op}/{j} {rng.random():.6f}"
        candidate = CandidateMemory(
            type=rng.choice(_TYPES), name=name, description=f"{name}: {op}/{j}", content=content
        )
        if action is MemoryAction.ADD:
            operations.append(MemoryOperation(action=action, entry=candidate))
            writes[name] = content
        elif action is MemoryAction.UPDATE:
            operations.append(MemoryOperation(action=action, target_name=target, entry=candidate))
            writes[target] = content
        else:
            operations.append(MemoryOperation(action=action, entry=candidate))
    return operations, writes


def read_until_told(store: MemoryStore) -> None:
    """Read every ``MEMORY.md`` raw and load the store, about every 5 ms, until a line or EOF on stdin."""
    indexes = [folder / INDEX_NAME for folder in store.dirs.values()]
    reads, bad, versions, skipped, loads = 0, [], set(), 0, 0
    while not select.select([sys.stdin], [], [], 0.005)[0]:
        for index in indexes:
            try:
                text = index.read_bytes().decode("utf-8")
            except FileNotFoundError:
                continue
            except UnicodeDecodeError:
                text = "(cut inside a character)"
            reads, versions = reads + 1, versions | {text}
            bad += [f"{index.name}: {problem}" for problem in index_problems(text)]
        loads, skipped = loads + 1, skipped + len(store.problems())
        store.load_all()
    _emit("read", {"reads": reads, "loads": loads, "bad": bad[:20], "versions": len(versions), "skipped": skipped})


def serve(root: Path, project: str) -> None:
    """Fork one mixed writer per ``run <id> <seed>`` line and report its end; stop at EOF."""
    while line := sys.stdin.readline():
        _, run, seed = line.split()
        pid = os.fork()
        if pid == 0:
            try:
                os.setpgid(0, 0)  # so the parent can kill it together with its git commands
                _emit("child", str(os.getpid()))
                write_mixed(open_store(root, project), random.Random(seed), run)
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(1)  # only reached on an error: a mixed writer runs until it is killed
        _emit("exit", f"{run} {os.waitpid(pid, 0)[1]}")


def _quiet_logs() -> None:
    """Warnings and errors to stderr as JSON lines (a test asserts there are none); the rest nowhere."""
    import logging

    import structlog

    structlog.configure(
        processors=[structlog.processors.add_log_level, structlog.processors.JSONRenderer()],
        wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
    )


def main(argv: list[str]) -> int:
    """Parse the command line and run one mode."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("mode", choices=["write", "update", "mixed", "serve", "read"])
    parser.add_argument("--project", default="p1")
    parser.add_argument("--prefix", default="memory")
    parser.add_argument("--name", default="shared-choice")
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--seed", default="0")
    parser.add_argument("--barrier", action="store_true", help="print ready, then wait for a line on stdin")
    args = parser.parse_args(argv)
    _quiet_logs()
    if args.mode == "serve":
        serve(args.root, args.project)
        return 0
    store = open_store(args.root, args.project)
    if args.barrier:
        _emit("ready")
        sys.stdin.readline()
    if args.mode == "write":
        write_distinct(store, args.prefix, args.count)
    elif args.mode == "update":
        update_one(store, args.name, args.prefix, args.count)
    elif args.mode == "mixed":
        write_mixed(store, random.Random(args.seed), args.prefix)
    else:
        read_until_told(store)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
