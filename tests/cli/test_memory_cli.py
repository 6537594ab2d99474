"""``catcode memory ...`` offline, with no API key: list/show/path/log/diff/clear/revert/doctor through typer's
CliRunner, errors as one line on stderr with exit 1, and real runs of the installed console script (a list, and
searches of hand-written memories as an outside tester makes them)."""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog
from typer.testing import CliRunner

from catcode.cli.typer_app import app
from catcode.memory.builder import build_memory_runtime
from catcode.memory.runtime import MemoryRuntime
from catcode.memory.store.models import MemoryEntry, MemoryType
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import catcode_home, resolve_paths
from tests.slowness import bound

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

VIM = MemoryEntry(name="user-prefers-vim", description="用户偏好 vim 编辑器", type=MemoryType.USER, content="vim")
API = MemoryEntry(name="project-api-style", description="Kotlin style", type=MemoryType.PROJECT, content="Kotlin")


@pytest.fixture(autouse=True)
def _keep_logging() -> Iterator[None]:
    """The CLI configures logging for the process; put the test configuration back afterwards."""
    saved, handlers = structlog.get_config(), logging.getLogger().handlers[:]
    yield
    structlog.configure(**saved)
    for handler in logging.getLogger().handlers:
        if handler not in handlers:
            handler.close()
    logging.getLogger().handlers[:] = handlers


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    monkeypatch.setenv("CATCODE_USER_ID", "tester")
    return root


def runtime(project: Path) -> MemoryRuntime:
    """The same memory the CLI sees from ``project``."""
    home = catcode_home()
    settings = load_settings(home, project, dict(os.environ), {})
    return build_memory_runtime(settings, resolve_paths(settings, home, project))


def cli(*args: str) -> object:
    return CliRunner().invoke(app, ["memory", *args])


def test_list_show_and_path(project: Path) -> None:
    result = cli("list")
    assert (result.exit_code, result.stdout) == (0, "No memories stored.\n")
    memory = runtime(project)
    memory.store.update(API, why="save")
    memory.store.update(VIM, why="save")
    (memory.paths.user_memory / "broken.md").write_text("not a memory", encoding="utf-8")
    (memory.paths.user_memory / "broken.md").chmod(0o600)  # a wider file would add the start-up notice about modes
    result = cli("list")
    assert result.exit_code == 0
    assert result.stdout == (
        "user-prefers-vim - 用户偏好 vim 编辑器 (user, all projects)\n"
        "project-api-style - Kotlin style (project, this project)\n"
    )
    assert result.stderr == "1 unreadable memory file skipped — run catcode memory doctor\n"
    shown = cli("show", "user-prefers-vim")
    assert shown.exit_code == 0
    assert shown.stdout.startswith("## user-prefers-vim (user, all projects)\n用户偏好 vim 编辑器\n")
    missing = cli("show", "nope")
    assert missing.exit_code == 1 and missing.stdout == ""
    assert missing.stderr == "catcode: No memory named nope. `catcode memory list` shows them.\n"
    path = cli("path")
    assert path.exit_code == 0
    assert f"user scope:    {memory.paths.user_memory}\n" in path.stdout
    assert f"project scope: {memory.paths.project_memory}\n" in path.stdout


def test_log_diff_clear_and_revert(project: Path) -> None:
    memory = runtime(project)
    memory.store.update(VIM, why="save")
    memory.store.update(API, why="save")
    log = cli("log", "2")
    assert log.exit_code == 0
    lines = log.stdout.splitlines()
    assert re.fullmatch(r"[0-9a-f]{7}  \d{4}-\d\d-\d\d \d\d:\d\d  save: add project-api-style", lines[0])
    assert lines[1] == "    A project-api-style" and lines[2].endswith("  save: add user-prefers-vim")
    assert lines[3:] == ["    A user-prefers-vim"]
    diff = cli("diff")
    assert diff.exit_code == 0 and "+name: project-api-style" in diff.stdout and "\x1b[" not in diff.stdout

    refused = cli("clear")
    assert refused.exit_code == 1
    assert refused.stderr == "catcode: Refusing to delete 2 memories without --yes (no terminal to ask on)\n"
    assert len(memory.store.load_all()) == 2
    cleared = cli("clear", "--yes")
    assert cleared.exit_code == 0
    assert re.fullmatch(
        r"Deleted 2 memories \(1 for all projects, 1 for this project\)\. "
        r"Undo with `catcode memory revert [0-9a-f]{7}`\.\n",
        cleared.stdout,
    )
    assert memory.store.load_all() == []
    undone = cli("revert")
    assert undone.exit_code == 0 and undone.stdout.startswith("Undid ")
    assert [e.name for e in memory.store.load_all()] == ["project-api-style", "user-prefers-vim"]
    bad = cli("revert", "nope")
    assert bad.exit_code == 1 and bad.stderr.startswith("catcode: No memory change 'nope'")
    assert len(bad.stderr.splitlines()) == 1
    assert "catcode memory log" in bad.stderr and "/memory" not in bad.stderr  # the shell's command, named


def test_doctor_exit_codes(project: Path) -> None:
    healthy = cli("doctor")
    assert healthy.exit_code == 0 and healthy.stdout.endswith("Memory is healthy.\n")
    memory = runtime(project)
    memory.store.update(VIM, why="save")
    bad = memory.paths.user_memory / "broken.md"
    bad.write_text("---\nname: broken\n", encoding="utf-8")
    sick = cli("doctor")
    assert sick.exit_code == 1 and "users/" in sick.stdout and "broken.md: broken front matter" in sick.stdout
    assert bad.exists()
    fixed = cli("doctor", "--fix")
    assert fixed.exit_code == 0 and "quarantined users/" in fixed.stdout
    assert not bad.exists()
    assert cli("doctor").exit_code == 0


def test_real_console_script_lists_memories_without_an_api_key(project: Path, tmp_path: Path) -> None:
    runtime(project).store.update(VIM, why="save")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    script = Path(sys.executable).parent / "catcode"
    done = subprocess.run(
        [str(script), "memory", "list"], cwd=project, env=env, capture_output=True, text=True, timeout=bound(60)
    )
    listed = "user-prefers-vim - 用户偏好 vim 编辑器 (user, all projects)\n"
    assert (done.returncode, done.stdout, done.stderr) == (0, listed, "")


def _write_memory_file(folder: Path, name: str, description: str, content: str) -> None:
    """A memory written by hand in the documented format, as a script or another tool would."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(
        f"---\nname: {name}\ndescription: {description}\nmetadata:\n  type: project\n  createdAt: 2026-08-06\n"
        f"  updatedAt: 2026-08-06\n---\n{content}\n",
        encoding="utf-8",
    )


def test_search_json_prints_one_object_per_line_with_the_documented_keys(project: Path) -> None:
    memory = runtime(project)
    memory.store.update(VIM)
    folder = memory.paths.project_memory
    for i in range(120):
        _write_memory_file(folder, f"turn-{i:03d}", f"Turn {i}", f"Caroline talked about the support group, take {i}.")
    _write_memory_file(folder, "turn-lgbtq", "Caroline on 8 May", "Caroline: I went to the LGBTQ support group.")
    result = cli("search", "--json", "--limit", "100", "--", "When did Caroline go to the LGBTQ support group?")
    assert result.exit_code == 0, result.output
    hits = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(hits) == 100 and all(set(h) == {"kind", "source", "date", "score", "snippet", "scope"} for h in hits)
    assert hits[0] == {"kind": "memory", "source": "memory turn-lgbtq", "date": "2026-08-06",
                       "score": hits[0]["score"], "snippet": "Caroline: I went to the LGBTQ support group.",
                       "scope": "project"}  # fmt: skip
    assert hits[0]["score"] > hits[1]["score"] and len({h["source"] for h in hits}) == 100  # one line per source
    short = cli("search", "-n", "3", "--json", "vim")
    assert short.exit_code == 0 and [json.loads(x)["source"] for x in short.stdout.splitlines()] == [
        "memory user-prefers-vim"]  # fmt: skip
    too_many = cli("search", "--limit", "101", "vim")
    assert too_many.exit_code == 2 and not any(x.startswith("{") for x in too_many.output.splitlines())
    assert cli("search", "--json", "--", "no such thing anywhere").stdout == ""


def test_search_scores_every_match_above_zero_even_for_a_word_most_memories_hold(project: Path) -> None:
    folder = runtime(project).paths.project_memory
    for name in ("retry-a", "retry-b", "retry-c"):
        _write_memory_file(folder, name, f"note {name}", f"The retry policy {name} is written down here.")
    _write_memory_file(folder, "bikes", "unrelated", "Something else about bikes.")
    result = cli("search", "--json", "--", "retry policy")
    scores = [json.loads(line)["score"] for line in result.stdout.splitlines()]
    assert len(scores) == 3 and all(score > 0 for score in scores) and scores == sorted(scores, reverse=True)


def test_search_says_how_many_hand_written_files_it_left_out(project: Path) -> None:
    folder = runtime(project).paths.project_memory
    _write_memory_file(folder, "support-group", "Caroline", "Caroline went to the LGBTQ support group.")
    (folder / "no-metadata.md").write_text("---\nname: no-metadata\ndescription: d\n---\nLGBTQ\n", encoding="utf-8")
    result = cli("search", "--json", "--", "LGBTQ")
    assert [json.loads(line)["source"] for line in result.stdout.splitlines()] == ["memory support-group"]
    assert result.stderr.endswith("\n1 unreadable memory file skipped — run catcode memory doctor\n")


def test_a_first_search_of_a_folder_written_by_hand_reads_and_indexes_it_all_up_to_its_budget(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond what a start reads at once (``READ_BUDGET``) and what a sync indexes on the way to an answer
    (``SYNC_BUDGET``), an explicit search still reads and indexes every memory up to ``SEARCH_NOW``: its first
    answer misses none; beyond that it says the rest is indexed in the background."""
    from catcode.memory import service
    from catcode.memory.recall import recall as recall_module
    from catcode.memory.store import store as store_module
    from catcode.memory.words import INDEXING

    monkeypatch.setattr(store_module, "READ_BUDGET", 3)
    monkeypatch.setattr(recall_module, "SYNC_BUDGET", 5)
    started: list[object] = []
    monkeypatch.setattr(MemoryRuntime, "start_upkeep", lambda self: started.append(self) or True)
    folder = runtime(project).paths.project_memory
    for i in range(40):
        _write_memory_file(folder, f"note-{i:02d}", f"Note {i}", f"Filler text number {i}.")
    _write_memory_file(folder, "zz-kayak", "Caroline", "Caroline bought a kayak.")
    result = cli("search", "--json", "--", "kayak")
    assert [json.loads(line)["source"] for line in result.stdout.splitlines()] == ["memory zz-kayak"]
    assert "background" not in result.stderr and started == []

    monkeypatch.setattr(service, "SEARCH_NOW", 10)
    _write_memory_file(folder, "zz-canoe", "Caroline", "Caroline bought a canoe.")
    for i in range(40, 60):
        _write_memory_file(folder, f"note-{i:02d}", f"Note {i}", f"Filler text number {i}.")
    late = cli("search", "--json", "--", "canoe")
    assert late.exit_code == 0 and INDEXING in late.stderr and len(started) == 1


@pytest.mark.parametrize(
    "question",
    ['"unbalanced', "NEAR(vim, 2) AND -x", "col:vim*", "--json", "-n 5", "what's up?!", "(c++) OR ^vim", "用户 vim"],
)
def test_a_question_after_double_dash_is_plain_text(project: Path, question: str) -> None:
    runtime(project).store.update(VIM)
    result = cli("search", "--", question)
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout.startswith(("memory user-prefers-vim, ", "No memories match "))


def test_reading_never_commits_and_only_valid_redacted_memory_files_are_ever_committed(project: Path) -> None:
    """Issue 14 #7: ``catcode memory list`` committed a hand-written memory holding a token, and an unreadable file
    holding a password, unredacted; the first start committed a 10 MB file and binary garbage as "recover: …"."""
    from catcode.memory.store.entry_file import render

    memory = runtime(project)
    memory.store.update(API, why="save")
    before = [c.sha for c in memory.git.log(100)]
    folder = memory.paths.user_memory
    folder.mkdir(mode=0o700)
    token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    hand = MemoryEntry(name="deploy-notes", description="how we deploy", type=MemoryType.USER, content=f"use {token}")
    (folder / "deploy-notes.md").write_text(render(hand), encoding="utf-8")
    (folder / "notes.md").write_text(f"no front matter, but a token: {token}\n", encoding="utf-8")
    (folder / "huge.md").write_bytes(b"x" * 10_000_000)
    (folder / "garbage.md").write_bytes(bytes(range(256)) * 8)
    for path in folder.iterdir():
        path.chmod(0o600)

    for args in (["list"], ["show", "deploy-notes"], ["search", "deploy"], ["recent"], ["log"], ["diff"],
                 ["status"], ["doctor"], ["path"]):  # fmt: skip
        cli(*args)
    assert [c.sha for c in memory.git.log(100)] == before  # reading never writes history

    memory.store.reconcile()  # what the next session start does
    root = memory.paths.memory_root
    everything = subprocess.run(
        ["git", "log", "--all", "-p", "--format=%s"], cwd=root, capture_output=True, check=True
    ).stdout
    assert token.encode() not in everything
    assert b"[REDACTED:github_token]" in everything and b"deploy-notes" in everything
    assert token not in (folder / "deploy-notes.md").read_text(encoding="utf-8")  # the file itself is redacted
    tracked = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout
    assert {Path(line).name for line in tracked.splitlines()} & {"notes.md", "huge.md", "garbage.md"} == set()


def test_forget_asks_unless_yes_and_status_works_offline(project: Path) -> None:
    """Issue 14 #11: `catcode memory forget NAME` (asks; --yes skips) and `catcode memory status`."""
    memory = runtime(project)
    memory.store.update(VIM, why="save")
    memory.store.update(API, why="save")
    refused = cli("forget", "user-prefers-vim")
    assert refused.exit_code == 1
    assert refused.stderr == "catcode: Refusing to forget user-prefers-vim without --yes (no terminal to ask on)\n"
    done = cli("forget", "user-prefers-vim", "--yes")
    assert done.exit_code == 0
    assert re.fullmatch(r"Forgot user-prefers-vim \(all projects\)\. Undo with `catcode memory revert [0-9a-f]{7}`\.\n",
                        done.stdout)  # fmt: skip
    assert [e.name for e in memory.store.load_all()] == ["project-api-style"]
    assert cli("forget", "nope", "--yes").stderr == "catcode: No memory named nope. `catcode memory list` shows them.\n"
    status = cli("status")
    assert status.exit_code == 0
    assert f"project scope:  {memory.paths.project_memory} (1 memory, for this project)" in status.stdout
    assert "unprocessed:    0 message lines" in status.stdout and "versioning:     on (git)" in status.stdout
    moved = cli("move", "project-api-style", "user")
    assert moved.exit_code == 0 and moved.stdout.startswith("Moved project-api-style to all projects")


def test_edit_without_a_terminal_gives_up_on_a_broken_file_and_changes_nothing(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = runtime(project)
    memory.store.update(VIM, why="save")
    before = memory.store.path_of("user-prefers-vim").read_bytes()
    editor = tmp_path / "break.sh"
    editor.write_text('#!/bin/sh\nprintf "no front matter\\n" > "$1"\n')
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    monkeypatch.delenv("VISUAL", raising=False)
    result = cli("edit", "user-prefers-vim")
    assert result.exit_code == 1 and "user-prefers-vim was not changed: broken front matter" in result.stderr
    assert memory.store.path_of("user-prefers-vim").read_bytes() == before


def test_edit_with_an_editor_that_fails_exits_1_and_changes_nothing(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory = runtime(project)
    memory.store.update(VIM, why="save")
    before = memory.store.path_of("user-prefers-vim").read_bytes()
    monkeypatch.setenv("VISUAL", "false")
    result = cli("edit", "user-prefers-vim")
    assert result.exit_code == 1
    assert "The editor exited with status 1; user-prefers-vim was not changed." in result.stderr
    assert memory.store.path_of("user-prefers-vim").read_bytes() == before


def test_edit_with_an_editor_that_leaves_a_backup_file_saves_and_leaves_no_copy_behind(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Editors such as emacs keep ``name.md~`` next to the file they edit: the edit is saved all the same, and no
    copy of the memory is left in the temporary folder."""
    memory = runtime(project)
    memory.store.update(VIM, why="save")
    editor = tmp_path / "backup.sh"
    editor.write_text('#!/bin/sh\ncp "$1" "$1~"\nsed -i "s/^vim$/vim and tmux/" "$1"\n')
    editor.chmod(0o755)
    monkeypatch.setenv("VISUAL", str(editor))
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr("tempfile.tempdir", None)
    result = cli("edit", "user-prefers-vim")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("Saved user-prefers-vim. Undo with `catcode memory revert ")
    assert "vim and tmux" in memory.store.path_of("user-prefers-vim").read_text(encoding="utf-8")
    assert list(temp.iterdir()) == []


def test_real_console_script_finds_hand_written_turns_as_an_outside_tester_asks(project: Path) -> None:
    """The acceptance procedure in small, through the installed ``catcode``: each turn of two corpus conversations
    is a memory file written by hand (nothing of catcode has run in this home yet), each question of one of them
    (16, to keep the process starts few) goes as written to
    ``catcode memory search --json -n 100 -- QUESTION``, and the parsed hits are scored against Okapi BM25 over the
    same texts. The full figures are scripts/bench.py's (``retrieval``); this proves the binary's path."""
    from scripts.bench_recall_quality import memory_file
    from tests.recall_bench import BM25Baseline, Corpus, Question, evaluate, load_corpus

    full = load_corpus()
    keep = ("chat01", "dev01")
    questions = tuple(q for q in full.questions if q.conversation == keep[0])
    corpus = Corpus({cid: full.conversations[cid] for cid in keep}, questions)
    folder = runtime(project).paths.project_memory
    folder.mkdir(parents=True, exist_ok=True)
    for turn in corpus.turns.values():
        (folder / f"{turn.id.lower()}.md").write_text(memory_file(turn), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    script = Path(sys.executable).parent / "catcode"
    ids = {turn_id.lower(): turn_id for turn_id in corpus.turns}

    def search(question: Question) -> list[str]:
        argv = [str(script), "memory", "search", "--json", "-n", "100", "--", question.question]
        done = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=bound(60))
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        hits = [json.loads(line) for line in done.stdout.splitlines()]
        assert all(list(h) == ["kind", "source", "date", "score", "snippet", "scope"] for h in hits)
        assert all(h["kind"] == "memory" and h["scope"] == "project" for h in hits) and len(hits) <= 100
        return [ids[h["source"].removeprefix("memory ")] for h in hits]

    catcode = evaluate(search, questions, (5,))["any_gold@5"]
    bm25 = evaluate(BM25Baseline(corpus, pooled=True), questions, (5,))["any_gold@5"]
    assert catcode >= 1.2 * bm25, f"any-gold@5: catcode {catcode:.3f}, BM25 {bm25:.3f}"


def test_real_console_script_searches_see_every_hand_change_made_between_them(project: Path) -> None:
    """Each search is a new ``catcode`` process; the second starts from what the first read (the scan record) and
    still sees what another process changed by hand in between — a memory edited in place keeping its size and
    mtime, one added, one deleted, one made invalid (the unreadable line), a secret (redacted) — answering exactly
    as a search that parses every file (the record deleted)."""
    from catcode.memory.store.entry_file import render

    paths = runtime(project).paths
    folder = paths.project_memory
    folder.mkdir(parents=True, exist_ok=True)

    def write(name: str, content: str) -> Path:
        entry = MemoryEntry(name=name, description=f"deploy {name}", type=MemoryType.PROJECT, content=content)
        (folder / f"{name}.md").write_text(render(entry), encoding="utf-8")
        (folder / f"{name}.md").chmod(0o600)  # a wider file would add the start-up notice about modes
        return folder / f"{name}.md"

    edited = write("deploy-target", "we deploy to fra1 on fridays")
    for name in ("deploy-owner", "deploy-window", "deploy-tool"):
        write(name, f"the {name} is decided by the release team")
    script = Path(sys.executable).parent / "catcode"

    def search() -> tuple[list[dict[str, object]], str]:
        argv = [str(script), "memory", "search", "--json", "-n", "100", "--", "deploy"]
        done = subprocess.run(argv, cwd=project, capture_output=True, text=True, timeout=bound(60))
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        return [json.loads(line) for line in done.stdout.splitlines()], done.stderr

    first, _ = search()
    catalogued = b"".join(db.read_bytes() for db in paths.memory_cache.iterdir())
    assert len(first) == 4 and b"deploy-owner" in catalogued
    before = edited.stat()
    with open(edited, "r+b") as fh:  # in place, same size, the mtime put back
        fh.write(edited.read_bytes().replace(b"fra1", b"ams3"))
    os.utime(edited, ns=(before.st_atime_ns, before.st_mtime_ns))
    (folder / "deploy-owner.md").unlink()
    with open(folder / "deploy-window.md", "w", encoding="utf-8") as fh:  # in place
        fh.write("deploy notes without front matter")
    token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    write("deploy-secret", f"deploy with the token {token}")

    second, stderr = search()
    snippets = {str(hit["source"]): str(hit["snippet"]) for hit in second}
    assert sorted(snippets) == ["memory deploy-secret", "memory deploy-target", "memory deploy-tool"]
    assert "ams3" in snippets["memory deploy-target"] and token not in "".join(snippets.values())
    assert stderr.endswith("1 unreadable memory file skipped — run catcode memory doctor\n")
    shutil.rmtree(paths.memory_cache)
    assert search() == (second, stderr)
