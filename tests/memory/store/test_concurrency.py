"""Several catcode processes on one memory root at once (see writer_process.py), started together:

- four writers, 50 distinct memories each, two in project ``pa`` and two in project ``pb`` (different project
  folders, the same user folder, root and lock);
- two processes updating the same user memory ``shared-choice``, one from each project;
- a reader reading every ``MEMORY.md`` and loading the store meanwhile.

The scenario runs once per module; each test checks one promise about its outcome."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from writer_process import USER, Writer, consistency_problems, open_store

from catcode.memory.versioning.git_store import GitStore
from tests.slowness import bound

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

WRITES = 50
UPDATES = 10
SHARED = "shared-choice"
WAIT = bound(180.0)
WRITERS = {"w1": "pa", "w2": "pa", "w3": "pb", "w4": "pb"}
UPDATERS = {"ua": "pa", "ub": "pb"}


@dataclass
class Outcome:
    """What the processes printed and left behind."""

    root: Path
    exits: dict[str, int] = field(default_factory=dict)
    stderr: dict[str, str] = field(default_factory=dict)
    writes: dict[str, dict[str, str]] = field(default_factory=dict)  # process → name → content, in order
    done: dict[str, list[str]] = field(default_factory=dict)  # process → the why of each finished operation
    read: dict[str, Any] = field(default_factory=dict)


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> Outcome:
    tmp = tmp_path_factory.mktemp("concurrency")
    home = tmp / "home"
    env = {**os.environ, "HOME": str(home), "CATCODE_HOME": str(home / ".cat-code"), "GIT_CONFIG_GLOBAL": os.devnull}
    root = tmp / "memory"
    started = {
        **{p: Writer(root, "write", "--project", proj, "--prefix", p, "--count", str(WRITES), "--barrier", env=env)
           for p, proj in WRITERS.items()},
        **{p: Writer(root, "update", "--project", proj, "--name", SHARED, "--prefix", p, "--count", str(UPDATES),
                     "--barrier", env=env)
           for p, proj in UPDATERS.items()},
        "reader": Writer(root, "read", "--project", "pa", "--barrier", env=env),
    }  # fmt: skip
    try:
        for process in started.values():
            process.expect("ready", WAIT)
        for process in started.values():
            process.send("go")
        result = Outcome(root)
        for name, process in started.items():
            if name == "reader":
                continue
            events, result.stderr[name] = process.finish(WAIT)
            result.exits[name] = process.proc.returncode
            result.writes[name] = {k: v for kind, p in events if kind == "begin" for k, v in p["writes"].items()}
            whys = {p["op"]: p["why"] for kind, p in events if kind == "begin"}
            result.done[name] = [whys[p["op"]] for kind, p in events if kind == "done"]
        started["reader"].send("stop")
        events, result.stderr["reader"] = started["reader"].finish(WAIT)
        result.exits["reader"] = started["reader"].proc.returncode
        result.read = next(p for kind, p in events if kind == "read")
        return result
    finally:
        for process in started.values():
            if process.proc.poll() is None:
                process.proc.kill()
                process.proc.wait()


def test_every_process_finishes_every_write_without_an_error(outcome: Outcome) -> None:
    assert outcome.exits == dict.fromkeys([*WRITERS, *UPDATERS, "reader"], 0)
    assert outcome.stderr == dict.fromkeys([*WRITERS, *UPDATERS, "reader"], "")
    finished = {p: len(whys) for p, whys in outcome.done.items()}
    assert finished == {**dict.fromkeys(WRITERS, WRITES), **dict.fromkeys(UPDATERS, UPDATES)}


def test_all_200_memories_are_present_in_the_projects_that_see_them(outcome: Outcome) -> None:
    written = {name: content for p in WRITERS for name, content in outcome.writes[p].items()}
    assert len(written) == len(WRITERS) * WRITES
    for project in ("pa", "pb"):
        store = open_store(outcome.root, project)
        seen = {entry.name: entry.content for entry in store.load_all() if entry.name != SHARED}
        # A project sees its own project memories and every user memory (the user folder is shared).
        user_folder = outcome.root / "users" / USER
        visible = {
            name: content
            for p, proj in WRITERS.items()
            for name, content in outcome.writes[p].items()
            if proj == project or (user_folder / f"{name}.md").exists()
        }
        assert seen == visible
        assert store.problems() == []
    everything = {
        entry.name: entry.content for project in ("pa", "pb") for entry in open_store(outcome.root, project).load_all()
    }
    assert {name: everything.get(name) for name in written} == written


def test_every_write_has_exactly_one_commit_and_the_repository_is_intact(outcome: Outcome) -> None:
    git = GitStore(outcome.root)
    subjects = Counter(change.subject.partition(":")[0] for change in git.log(limit=10_000))
    finished = [why for p in outcome.done for why in outcome.done[p]]
    assert {why: subjects[why] for why in finished} == dict.fromkeys(finished, 1)
    assert git.fsck()


def test_same_name_updates_are_all_in_history_and_the_last_one_wins(outcome: Outcome) -> None:
    relative = f"users/{USER}/{SHARED}.md"
    history = [c for c in GitStore(outcome.root).log(limit=10_000) if relative in {f.path for f in c.files}]
    whys = [change.subject.partition(":")[0] for change in history]  # newest first
    assert sorted(whys) == sorted(outcome.done["ua"] + outcome.done["ub"])
    for updater in UPDATERS:  # each process's updates were committed in the order it made them
        assert [w for w in reversed(whys) if w.startswith(f"op-{updater}-")] == outcome.done[updater]
    last_writer = whys[0].removeprefix("op-").split("-")[0]
    finals = {p: f"{p} update {UPDATES - 1}" for p in UPDATERS}
    content = open_store(outcome.root, "pa").get(SHARED).content  # type: ignore[union-attr]
    assert content == finals[last_writer]
    committed = subprocess.run(
        ["git", "show", f"HEAD:{relative}"], cwd=outcome.root, capture_output=True, text=True, check=True
    ).stdout
    assert committed == (outcome.root / relative).read_text(encoding="utf-8")


def test_the_reader_never_sees_a_half_written_index_or_memory(outcome: Outcome) -> None:
    read = outcome.read
    assert read["bad"] == []
    assert read["skipped"] == 0  # load_all never met a partial memory file either
    assert read["reads"] > 20 and read["loads"] > 10
    assert read["versions"] >= 2  # it read while the writers were changing the indexes


def test_after_the_storm_each_project_loads_a_consistent_store(outcome: Outcome) -> None:
    for project in ("pa", "pb"):
        assert consistency_problems(open_store(outcome.root, project)) == []
