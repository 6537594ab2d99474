"""The quick search (``memory/quick_search.py``): ``catcode memory search`` answered from the index alone prints
exactly what the full command prints — the same lines, in the same order, the same JSON, the same unreadable line —
over any store and question; and anything that could make the index's answer differ from the full one (no record
yet, a memory file added or edited by hand, facts.db missing or locked, a settings file or the environment changed)
makes it step aside for the full command."""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from catcode.cli.typer_app import app
from catcode.memory.builder import build_memory_runtime
from catcode.memory.quick_search import answer, record_path
from catcode.memory.runtime import MemoryRuntime
from catcode.memory.store.entry_file import render
from catcode.memory.store.file_keys import tick
from catcode.memory.store.models import MemoryEntry, MemoryType
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import catcode_home, resolve_paths
from tests.in_process import run_catcode

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

WORDS = ("parser", "cache", "deploy", "vim", "kotlin", "billing", "flaky", "缓存", "retry", "\x1b[31mred\x1b[0m")
NAMES = ("alpha-note", "beta-note", "gamma-note", "delta-note", "epsilon-note")
QUESTIONS = ("vim", "parser cache", "缓存", "deploy billing flaky", "red", "nothing-like-it", "kotlin retry vim")


def memory_runtime(project: Path) -> MemoryRuntime:
    """The memory the command sees from ``project``."""
    home = catcode_home()
    found = load_settings(home, project, dict(os.environ), {})
    return build_memory_runtime(found, resolve_paths(found, home, project))


def write_by_hand(folder: Path, name: str, content: str, kind: MemoryType = MemoryType.PROJECT) -> Path:
    """A memory file written without catcode, in the documented format."""
    folder.mkdir(parents=True, exist_ok=True)
    entry = MemoryEntry(name=name, description=f"note {name}", type=kind, content=content)
    path = folder / f"{name}.md"
    path.write_text(render(entry), encoding="utf-8")
    path.chmod(0o600)
    return path


def full(*args: str) -> tuple[int, str, str]:
    """The typer command itself (the full search)."""
    done = CliRunner().invoke(app, ["memory", "search", *args])
    return done.exit_code, done.stdout, done.stderr


def command(project: Path, *args: str) -> tuple[int, str, str]:
    """``catcode memory search ARGS`` through the console script's entry point (the quick search when it can)."""
    done = run_catcode(["memory", "search", *args], env=dict(os.environ), cwd=project)
    return done.returncode, done.stdout, done.stderr


def past_a_tick(*folders: Path) -> None:
    """Wait until the last change of ``folders`` is a clock tick old (the store trusts a listing only then)."""
    for folder in folders:
        if folder.exists():
            st = os.stat(folder)
            changed = max(st.st_mtime_ns, st.st_ctime_ns)
            while time.time_ns() - changed < tick(changed):
                time.sleep(0.005)


def in_step(memory: MemoryRuntime, question: str = "vim") -> None:
    """Full searches until the index, the catalogues and the record are in step (each a tick after the last change
    of the folders: the first one may itself create the index's folder); the quick search answers then."""
    folders = (memory.paths.project_memory, memory.paths.user_memory)
    for _ in range(4):
        past_a_tick(*folders)
        assert full(question)[0] == 0
        past_a_tick(*folders)
        if answer(question, 10) is not None:
            return
    raise AssertionError("the quick search never answered")


@contextmanager
def fresh_home() -> Iterator[Path]:
    """A home and a project of their own (hypothesis runs many examples in one test)."""
    saved, cwd = os.environ.get("CATCODE_HOME"), Path.cwd()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        os.environ["CATCODE_HOME"] = str(Path(tmp) / "home")
        os.chdir(project)
        try:
            yield project
        finally:
            os.chdir(cwd)
            if saved is None:
                os.environ.pop("CATCODE_HOME", None)
            else:
                os.environ["CATCODE_HOME"] = saved


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    monkeypatch.setenv("CATCODE_USER_ID", "tester")
    return root


memories = st.lists(
    st.tuples(
        st.sampled_from(NAMES),
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
        st.booleans(),  # a memory for all projects
    ),
    max_size=6,
    unique_by=lambda m: m[0],
)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    stored=memories,
    broken=st.booleans(),
    questions=st.lists(st.sampled_from(QUESTIONS), min_size=1, max_size=3),
    limit=st.sampled_from(["1", "3", "10"]),
)
def test_the_quick_search_prints_what_the_full_search_prints(
    stored: list[tuple[str, list[str], bool]], broken: bool, questions: list[str], limit: str
) -> None:
    with fresh_home() as project:
        memory = memory_runtime(project)
        for name, words, everywhere in stored:
            folder = memory.paths.user_memory if everywhere else memory.paths.project_memory
            write_by_hand(folder, name, " ".join(words))
        if broken:
            write_by_hand(memory.paths.project_memory, "broken-note", "x").write_text("no front matter")
        in_step(memory)
        for question in questions:
            for form in ([question], ["--json", "-n", limit, "--", question]):
                assert answer(question, int(limit) if "-n" in form else 10, as_json="--json" in form) is not None
                assert command(project, *form) == full(*form)


def test_a_hand_written_memory_is_found_at_once_and_then_from_the_index(project: Path) -> None:
    memory = memory_runtime(project)
    assert answer("vim", 10) is None  # a fresh home: no record yet
    assert command(project, "vim") == (0, "No memories match vim.\n", "")
    in_step(memory)
    write_by_hand(memory.paths.project_memory, "user-prefers-vim", "use vim for every edit")
    assert answer("vim", 10) is None  # the folder changed: the full search reads it
    code, out, _ = command(project, "vim")
    assert code == 0 and out.startswith("memory user-prefers-vim, ")
    in_step(memory)
    assert answer("vim", 10) is not None
    assert command(project, "vim") == (0, out, "")


def test_an_edit_in_place_keeping_size_and_mtime_is_not_answered_from_the_index(project: Path) -> None:
    memory = memory_runtime(project)
    path = write_by_hand(memory.paths.project_memory, "deploy-target", "we deploy to fra1 on fridays")
    in_step(memory, "deploy")
    before = path.stat()
    with open(path, "r+b") as fh:
        fh.write(path.read_bytes().replace(b"fra1", b"ams3"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert answer("deploy", 10) is None
    assert "ams3" in command(project, "deploy")[1]


def test_a_missing_or_locked_index_steps_aside(project: Path) -> None:
    memory = memory_runtime(project)
    write_by_hand(memory.paths.project_memory, "cache-policy", "the cache keeps an hour")
    in_step(memory, "cache")
    facts = memory.paths.facts_db
    holder = sqlite3.connect(facts, isolation_level=None)
    try:
        holder.execute("PRAGMA locking_mode = EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        holder.execute("UPDATE meta SET value = value WHERE key = 'schema_version'")
        assert answer("cache", 10) is None
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert answer("cache", 10) is not None
    for suffix in ("", "-wal", "-shm"):
        facts.with_name(facts.name + suffix).unlink(missing_ok=True)
    assert answer("cache", 10) is None
    assert "cache-policy" in command(project, "cache")[1]


def test_a_settings_file_or_the_environment_changed_steps_aside(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memory = memory_runtime(project)
    write_by_hand(memory.paths.project_memory, "cache-policy", "the cache keeps an hour")
    in_step(memory, "cache")
    monkeypatch.setenv("CATCODE_MEMORY__ENABLED", "true")
    assert answer("cache", 10) is None
    monkeypatch.delenv("CATCODE_MEMORY__ENABLED")
    assert answer("cache", 10) is not None
    (project / ".cat-code").mkdir()
    (project / ".cat-code" / "settings.yaml").write_text("memory:\n  auto_recall: off\n")
    assert answer("cache", 10) is None
    record_path(memory.paths.home, memory.paths.project_root).unlink()
    assert answer("cache", 10) is None


def test_a_print_mode_session_leaves_the_next_search_answering_from_the_index(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A script's `catcode -p` adds conversation turns the search covers: at its end it indexes them and leaves the
    record, so the search that follows it answers from the index rather than re-reading everything."""
    from tests.fakes import FakeAnthropicServer, text

    memory = memory_runtime(project)
    write_by_hand(memory.paths.project_memory, "user-prefers-vim", "use vim for every edit")
    in_step(memory)
    out = command(project, "vim")
    with FakeAnthropicServer() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        for _ in range(2):  # the first session makes the history's files: a folder changed that late is read again
            past_a_tick(memory.paths.project_memory)
            server.enqueue(text("Hello."))
            assert run_catcode(["-p", "hi"], env=dict(os.environ), cwd=project).returncode == 0
    monkeypatch.delenv("ANTHROPIC_BASE_URL")  # the search is run where the API's environment is not
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert answer("vim", 10) is not None
    assert command(project, "vim") == out


def test_an_upkeep_leaves_the_next_search_answering_from_the_index(project: Path) -> None:
    """The capture's process after an exit (``catcode memory upkeep``) changes memory and the journal: at its end it
    leaves the record, so the search after an interactive session answers from the index too."""
    from catcode.cli.launch import load
    from catcode.memory.service import MemoryDoor

    memory = memory_runtime(project)
    write_by_hand(memory.paths.project_memory, "user-prefers-vim", "use vim for every edit")
    in_step(memory)
    out = command(project, "vim")
    write_by_hand(memory.paths.project_memory, "deploy-on-friday", "never deploy vim configs on a friday")
    past_a_tick(memory.paths.project_memory)
    assert answer("vim", 10) is None  # a memory added by hand: the full search would read it
    MemoryDoor.offline(*load()).upkeep()
    assert answer("vim", 10) is not None
    after = command(project, "vim")
    assert after != out and "deploy-on-friday" in after[1] and after == full("vim")
