"""A property of sync: whatever two machines do — writes (also moving a memory to the other scope), deletes,
reverts and syncs, in any interleaving — once both have synced, both hold the same memories, every index matches
its files, and nothing that was ever written is missing: each version is in the files or in git history."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from machines import Machine, bare_remote

from catcode.errors import MemoryStoreError
from catcode.memory.store.entry_file import render_index
from catcode.memory.store.models import MemoryType

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

MACHINES = st.sampled_from(["a", "b"])
NAMES = st.sampled_from(["alpha", "beta", "gamma"])
KINDS = st.sampled_from([MemoryType.USER, MemoryType.PROJECT])
OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("write"), MACHINES, NAMES, KINDS),
        st.tuples(st.just("delete"), MACHINES, NAMES),
        st.tuples(st.just("revert"), MACHINES),
        st.tuples(st.just("sync"), MACHINES),
    ),
    min_size=1,
    max_size=8,
)


def revert_last_own_change(machine: Machine) -> None:
    """Undo the newest change that is not a merge, as a person would pick it from the log (refusals are fine)."""
    for change in machine.git.log(10):
        if not change.subject.startswith("sync: merge") and change.files:
            try:
                machine.runtime.revert(change.sha)
            except MemoryStoreError:
                pass  # a conflict or an undone change: refused, nothing changed
            return


def indexes_match(machine: Machine) -> bool:
    for scope_dir in (machine.paths.user_memory, machine.paths.project_memory):
        entries = [e for e in machine.store.load_all() if machine.store.path_of(e.name).parent == scope_dir]
        index = scope_dir / "MEMORY.md"
        if entries and index.read_text(encoding="utf-8") != render_index(entries):
            return False
    return True


# own budget: each example syncs real git repositories between machines (~0.2 s)
@settings(max_examples=50, suppress_health_check=[HealthCheck.too_slow])
@given(operations=OPERATIONS)
def test_any_interleaving_converges_and_loses_nothing(operations: list[tuple]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        project = base / "project"
        project.mkdir()
        remote = bare_remote(base / "remote.git")
        machines = {"a": Machine(base / "a", project), "b": Machine(base / "b", project)}
        for machine in machines.values():
            machine.connect(remote)
        written: list[str] = []
        for number, (action, who, *args) in enumerate(operations):
            machine = machines[who]
            if action == "write":
                name, kind = args
                content = f"{name} version {number} written on {who}"
                machine.write(name, content, kind=kind)
                written.append(content)
            elif action == "delete":
                machine.delete(args[0])
            elif action == "revert":
                revert_last_own_change(machine)
            else:
                machine.sync()
        a, b = machines["a"], machines["b"]
        a.sync()
        b.sync()
        a.sync()
        assert a.memories() == b.memories()
        assert a.git.log(1)[0].sha == b.git.log(1)[0].sha
        assert a.store.problems() == [] and b.store.problems() == []
        assert indexes_match(a) and indexes_match(b)
        history = a.history()
        kept = set(a.memories().values())
        missing = [content for content in written if content not in kept and content not in history]
        assert missing == []
