"""Issue 38 §3: ``facts.db`` made by processes that start together. Every one of them gets a working index: the
tables are created in one transaction, so a process never sees them half made nor fails on "table meta already
exists" — through the real binary (``catcode memory search`` started at once), and with threads released together
on one new file, which makes the race far more likely than process start-up does."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

from catcode.memory.recall.facts import FactsIndex
from catcode.memory.recall.facts_schema import FactSource
from tests.e2e.conftest import catcode_argv
from tests.faults.helpers import isolated_env

PROCESSES = 6
THREADS = 16
ROUNDS = 10  # each round a new file: the race is likely in one, near certain in ten (when it exists)


def test_processes_started_together_all_search(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    env = isolated_env(home)
    argv = [*catcode_argv(), "memory", "search", "vim"]
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    procs = [subprocess.Popen(argv, cwd=project, env=env, **pipes) for _ in range(PROCESSES)]
    outcomes = [p.communicate(timeout=120) for p in procs]
    assert [(p.returncode, err) for p, (_, err) in zip(procs, outcomes, strict=True) if p.returncode] == []
    assert all(out.strip() for out, _ in outcomes)  # each answered (no memory matches: it says so)


def test_threads_opening_one_new_file_together_all_get_the_index(tmp_path: Path) -> None:
    for round_ in range(ROUNDS):
        db = tmp_path / f"facts-{round_}.db"
        barrier = threading.Barrier(THREADS)
        errors: list[BaseException] = []
        opened: list[FactsIndex] = []

        def open_it(db: Path = db, barrier: threading.Barrier = barrier, errors: list = errors, opened: list = opened):
            barrier.wait()
            try:
                opened.append(FactsIndex(db))
            except BaseException as exc:  # the test reports every one
                errors.append(exc)

        threads = [threading.Thread(target=open_it) for _ in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        opened[0].sync([FactSource("vim", "memory", "2026-01-01", "uses vim daily")])
        assert all(index.count() == 1 for index in opened)  # one database, whole, seen by every one of them
        for index in opened:
            index.close()
