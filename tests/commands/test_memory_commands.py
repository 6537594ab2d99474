"""/memory and /dream through the registry, on a real store and git history in tmp_path: seed report texts,
list/show/clear/log/diff/revert/status, failures as one line, and the subcommand extension point."""

from __future__ import annotations

import json
import re
import shutil
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console

from catcode.commands.registry import Command, CommandContext, CommandRegistry
from catcode.conversation.messages import Message
from catcode.errors import ProviderError
from catcode.memory.builder import build_memory_runtime
from catcode.memory.commands import SUBCOMMANDS, register_memory_commands
from catcode.memory.pipeline.run_result import Busy
from catcode.memory.runtime import MemoryRuntime
from catcode.memory.service import MemoryDoor
from catcode.memory.store.models import MemoryEntry, MemoryType, Scope
from catcode.memory.words import format_entry
from catcode.providers.scripted import ScriptedProvider, text_response
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import resolve_paths

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

VIM = {"type": "user", "name": "user-prefers-vim", "description": "用户偏好 vim 编辑器", "content": "用户偏好 vim"}
API = MemoryEntry(name="project-api-style", description="项目 API 风格遵循 Kotlin 官方惯例", type=MemoryType.PROJECT,
                  content="API 调用、命名、注释都遵循 Kotlin 官方风格指南")  # fmt: skip
USER = MemoryEntry(name="user-prefers-vim", description="用户偏好 vim 编辑器", type=MemoryType.USER, content="vim")


def extraction(*candidates: dict) -> object:
    return text_response(json.dumps({"candidates": list(candidates)}, ensure_ascii=False))


def consolidation(*entries: dict) -> object:
    ops = [{"action": "add", "targetName": None, "entry": e} for e in entries]
    return text_response(json.dumps({"operations": ops}, ensure_ascii=False))


def make_runtime(tmp_path: Path, *responses: object) -> MemoryRuntime:
    home, root = tmp_path / "home", tmp_path / "project"
    root.mkdir(exist_ok=True)
    settings = load_settings(home, root, {"CATCODE_USER_ID": "tester"}, {})
    return build_memory_runtime(settings, resolve_paths(settings, home, root), provider=ScriptedProvider(*responses))


def record_exchanges(runtime: MemoryRuntime, n: int) -> None:
    for i in range(n):
        runtime.history.append(Message.user(f"use vim {i}"))
        runtime.history.append(Message.assistant(f"ok {i}"))


class Repl:
    """Dispatches lines like the REPL does and returns what was printed."""

    def __init__(self, runtime: MemoryRuntime) -> None:
        self.registry = CommandRegistry()
        self.memory = register_memory_commands(self.registry, MemoryDoor(runtime))
        self.questions: list[str] = []

    def __call__(self, line: str, *, answer: bool = False, color: bool = False) -> str:
        out = StringIO()
        console = Console(file=out, width=400, force_terminal=color, color_system="truecolor" if color else None)

        def confirm(question: str) -> bool:
            self.questions.append(question)
            return answer

        self.registry.dispatch(line, CommandContext(None, console, confirm))
        return out.getvalue()


@pytest.fixture
def runtime(tmp_path: Path) -> MemoryRuntime:
    return make_runtime(tmp_path)


@pytest.fixture
def repl(runtime: MemoryRuntime) -> Repl:
    return Repl(runtime)


def test_memory_runs_the_pipeline_and_prints_the_seed_report(tmp_path: Path) -> None:
    runtime = make_runtime(tmp_path, extraction(VIM), consolidation(VIM))
    record_exchanges(runtime, 2)
    assert Repl(runtime)("/memory") == "Memory pipeline complete:\n  candidates: 1\n  added: user-prefers-vim\n"
    assert runtime.store.get("user-prefers-vim") is not None
    assert runtime.service.pending() == 0
    runtime.provider.assert_complete()


def test_memory_with_nothing_pending_reports_candidates_zero_with_a_note(tmp_path: Path) -> None:
    runtime = make_runtime(tmp_path)
    repl = Repl(runtime)
    expected = "Memory pipeline complete:\n  candidates: 0\n  note: no new messages since the last run\n"
    assert repl("/memory") == expected
    assert runtime.provider.requests == []


def test_memory_saves_what_waits_below_the_minimum(tmp_path: Path) -> None:
    # The exit says "2 new messages kept; memory runs from 4 — /memory saves them now": it does.
    runtime = make_runtime(tmp_path, extraction(VIM), consolidation(VIM))
    record_exchanges(runtime, 1)
    assert Repl(runtime)("/memory") == "Memory pipeline complete:\n  candidates: 1\n  added: user-prefers-vim\n"
    assert runtime.service.pending() == 0
    runtime.provider.assert_complete()


def test_memory_failure_is_one_line_and_keeps_the_cursor(tmp_path: Path) -> None:
    runtime = make_runtime(tmp_path, ProviderError("API overloaded (529) after 4 retries"))
    record_exchanges(runtime, 2)
    repl = Repl(runtime)
    assert repl("/memory") == "Memory pipeline failed: API overloaded (529) after 4 retries\n"
    assert runtime.cursor.get() == 0 and runtime.service.pending() == 4
    assert repl("/memory list") == "No memories stored.\n"  # the session goes on


def test_memory_busy(runtime: MemoryRuntime, repl: Repl, monkeypatch: pytest.MonkeyPatch) -> None:
    def busy(**kwargs: object) -> None:
        raise Busy("another memory run is in progress")

    monkeypatch.setattr(runtime.service, "process_pending", busy)
    expected = "Memory pipeline failed: another memory run is in progress — try again in a moment\n"
    assert repl("/memory") == expected


def test_dream_runs_in_the_foreground_and_status_shows_it(tmp_path: Path) -> None:
    runtime = make_runtime(tmp_path, extraction(VIM), consolidation(VIM), ProviderError("down"))
    repl = Repl(runtime)
    assert "last Dream:     none this session" in repl("/memory status")
    assert repl("/dream") == "Dream: nothing new to review.\n"
    record_exchanges(runtime, 2)
    assert repl("/dream") == "Dream: reviewed 4 messages — added user-prefers-vim.\n"
    assert re.search(
        r"last Dream: +\d{4}-\d\d-\d\d \d\d:\d\d \(dream\) changed user-prefers-vim", repl("/memory status")
    )
    record_exchanges(runtime, 2)
    assert repl("/dream") == "Dream failed: down\n"
    assert "(dream) failed: down" in repl("/memory status")


def test_list_user_scope_first_and_counts_unreadable_files(runtime: MemoryRuntime, repl: Repl) -> None:
    assert repl("/memory list") == "No memories stored.\n"
    runtime.store.update(API, why="save")
    runtime.store.update(USER, why="save")
    (runtime.paths.user_memory / "broken.md").write_text("no front matter", encoding="utf-8")
    (runtime.paths.project_memory / "other.md").write_bytes(b"\xff\xfe")
    assert repl("/memory list") == (
        "user-prefers-vim - 用户偏好 vim 编辑器 (user, all projects)\n"
        "project-api-style - 项目 API 风格遵循 Kotlin 官方惯例 (project, this project)\n"
        "2 unreadable memory files skipped — run catcode memory doctor\n"
    )


def test_show_and_completion(runtime: MemoryRuntime, repl: Repl) -> None:
    runtime.store.update(USER, why="save")
    shown = repl("/memory show user-prefers-vim")
    assert shown == format_entry(runtime.store.get("user-prefers-vim"), Scope.USER) + "\n"
    assert shown.startswith("## user-prefers-vim (user, all projects)\n")
    # Issue 14 #11: a message meant for a person, not the model's tool text.
    assert repl("/memory show nope") == "No memory named nope. /memory list shows them.\n"
    assert repl("/memory show") == "Usage: /memory show <name>\n"
    command = repl.registry.resolve("memory")
    assert isinstance(command, Command) and command.complete is not None
    assert command.complete(None, "show us") == ["show user-prefers-vim"]
    assert command.complete(None, "l") == ["list", "log"]
    assert command.complete(None, "forget us") == ["forget user-prefers-vim"]
    assert set(command.subcommands) == {
        "list", "show", "forget", "edit", "move", "clear", "log", "diff", "revert", "status"
    }  # fmt: skip


def test_clear_asks_and_no_keeps_everything(runtime: MemoryRuntime, repl: Repl) -> None:
    runtime.store.update(API, why="save")
    runtime.store.update(USER, why="save")
    commits = len(runtime.git.log(50))
    assert repl("/memory clear", answer=False) == "Kept every memory.\n"
    assert repl.questions == [
        "Delete all 2 memories (1 for all projects, 1 for this project)? This is a git commit you can revert."
    ]
    assert len(runtime.store.load_all()) == 2 and len(runtime.git.log(50)) == commits


def test_revert_of_a_clear_restores_every_file(runtime: MemoryRuntime, repl: Repl) -> None:
    runtime.store.update(API, why="save")
    runtime.store.update(USER, why="save")
    files = {p: p.read_bytes() for d in runtime.store.dirs.values() for p in d.glob("*.md")}
    cleared = repl("/memory clear", answer=True)
    assert re.fullmatch(
        r"Deleted 2 memories \(1 for all projects, 1 for this project\)\. Undo with /memory revert [0-9a-f]{7}\.\n",
        cleared,
    )
    assert runtime.store.load_all() == []
    out = repl("/memory revert")
    assert re.match(
        r"Undid [0-9a-f]{7} 'clear: delete project-api-style, user-prefers-vim' \(new change [0-9a-f]{7}\)\.", out
    )
    assert "  restored: project-api-style\n" in out and "  restored: user-prefers-vim\n" in out
    assert {p: p.read_bytes() for p in files} == files
    assert [e.name for e in runtime.store.load_all()] == ["project-api-style", "user-prefers-vim"]


def test_log_lists_changes_newest_first(runtime: MemoryRuntime, repl: Repl) -> None:
    runtime.store.update(USER, why="save")
    runtime.store.update(USER.model_copy(update={"content": "neovim"}), why="tool")
    runtime.store.delete("user-prefers-vim", why="tool")
    lines = repl("/memory log").splitlines()
    stamp = r"[0-9a-f]{7}  \d{4}-\d\d-\d\d \d\d:\d\d  "
    assert re.fullmatch(stamp + "tool: delete user-prefers-vim", lines[0])
    assert lines[1] == "    D user-prefers-vim"
    assert re.fullmatch(stamp + "tool: update user-prefers-vim", lines[2]) and lines[3] == "    M user-prefers-vim"
    assert re.fullmatch(stamp + "save: add user-prefers-vim", lines[4]) and lines[5] == "    A user-prefers-vim"
    assert len(lines) == 6  # the repository's set-up is not a change to memories
    assert re.fullmatch(stamp + "initialize memory versioning", repl("/memory log --all").splitlines()[-1])
    assert len(repl("/memory log 1").splitlines()) == 2
    assert repl("/memory log many") == "Usage: /memory log [N] [--all]\n"


def test_diff_of_a_change_plain_and_coloured(runtime: MemoryRuntime, repl: Repl) -> None:
    assert repl("/memory diff") == "No memory changes recorded yet.\n"
    runtime.store.update(USER, why="save")
    plain = repl("/memory diff")
    assert "save: add user-prefers-vim" in plain and "+name: user-prefers-vim" in plain and "\x1b[" not in plain
    assert "\x1b[" in repl("/memory diff", color=True)
    first = runtime.git.log(5)[-1].short_sha
    assert "initialize memory versioning" in repl(f"/memory diff {first}")
    assert repl("/memory diff nope").startswith("No memory change 'nope'")


def test_revert_conflict_is_one_red_line_and_changes_nothing(runtime: MemoryRuntime, repl: Repl) -> None:
    runtime.store.update(USER, why="save")
    added = runtime.git.log(1)[0].short_sha
    runtime.store.update(USER.model_copy(update={"content": "neovim"}))
    before = runtime.store.path_of("user-prefers-vim").read_bytes()
    out = repl(f"/memory revert {added}", color=True)
    assert "Cannot undo" in out and "\x1b[31m" in out and len(out.strip().splitlines()) == 1
    assert runtime.store.path_of("user-prefers-vim").read_bytes() == before
    assert runtime.store.get("user-prefers-vim").content == "neovim"


def test_status_lines(runtime: MemoryRuntime, repl: Repl) -> None:
    runtime.store.update(USER, why="save")
    record_exchanges(runtime, 2)
    (runtime.paths.user_memory / "broken.md").write_text("nope", encoding="utf-8")
    out = repl("/memory status")
    assert f"user scope:     {runtime.paths.user_memory} (1 memory, for all projects)" in out
    assert f"project scope:  {runtime.paths.project_memory} (0 memories, for this project)" in out
    assert "cursor:         history.jsonl processed through seq 0\n" in out
    assert "unprocessed:    4 message lines\n" in out
    assert "versioning:     on (git)\n" in out
    assert "unreadable:     1 file — run catcode memory doctor\n" in out


def test_unknown_subcommand_and_the_one_table(runtime: MemoryRuntime, repl: Repl) -> None:
    """Help, completion and dispatch all read ``SUBCOMMANDS``; the search subcommands need the session's search."""
    assert repl("/memory frobnicate").startswith("Unknown subcommand /memory frobnicate — choose one of: list, show")
    command = repl.registry.resolve("memory")
    assert isinstance(command, Command)
    assert command.subcommands == {name: sub.help for name, sub in SUBCOMMANDS.items() if not sub.recall}
    assert command.complete(None, "s") == ["show", "status"]  # no search without recall


def test_forget_asks_deletes_one_and_revert_brings_it_back(runtime: MemoryRuntime, repl: Repl) -> None:
    """Issue 14 #11: a single memory could not be forgotten by the person."""
    runtime.store.update(API, why="save")
    runtime.store.update(USER, why="save")
    assert repl("/memory forget user-prefers-vim", answer=False) == "Kept user-prefers-vim.\n"
    assert repl.questions == [
        "Forget user-prefers-vim (user, all projects): 用户偏好 vim 编辑器? This is a git commit you can revert."
    ]
    out = repl("/memory forget user-prefers-vim", answer=True)
    assert re.fullmatch(r"Forgot user-prefers-vim \(all projects\)\. Undo with /memory revert ([0-9a-f]{7})\.\n", out)
    assert [e.name for e in runtime.store.load_all()] == ["project-api-style"]
    repl(f"/memory revert {out.split()[-1].rstrip('.')}")
    assert runtime.store.get("user-prefers-vim") is not None
    assert repl("/memory forget nope") == "No memory named nope. /memory list shows them.\n"
    assert repl("/memory forget") == "Usage: /memory forget <name>\n"


def test_move_keeps_a_memory_for_this_project_or_for_all(runtime: MemoryRuntime, repl: Repl) -> None:
    """Issue 14 #10: /memory move NAME user|project."""
    runtime.store.update(USER, why="save")
    out = repl("/memory move user-prefers-vim project")
    assert re.fullmatch(
        r"Moved user-prefers-vim to this project \(it was for all projects\)\. "
        r"Undo with /memory revert [0-9a-f]{7}\.\n",
        out,
    )
    assert runtime.store.scope_of("user-prefers-vim") is Scope.PROJECT
    assert "(user, this project)" in repl("/memory list")
    assert repl("/memory move user-prefers-vim project") == "user-prefers-vim is already kept for this project\n"
    repl("/memory revert")
    assert runtime.store.scope_of("user-prefers-vim") is Scope.USER
    assert repl("/memory move user-prefers-vim") == "Usage: /memory move <name> user|project\n"
    assert repl("/memory move nope user") == "No memory named nope. /memory list shows them.\n"


def test_edit_opens_the_editor_checks_the_file_and_saves_through_the_write_path(
    runtime: MemoryRuntime, repl: Repl, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 14 #11: /memory edit NAME opens $VISUAL/$EDITOR; broken front matter re-opens it or aborts and
    nothing is half-written."""
    runtime.store.update(USER, why="save")
    path = runtime.store.path_of("user-prefers-vim")
    before = path.read_bytes()
    editor = tmp_path / "editor.sh"
    # The "editor" copies the next prepared text over the file it is given, as a person saving would.
    editor.write_text('#!/bin/sh\nn=$(cat "$EDITS/next")\ncp "$EDITS/$n" "$1"\necho $((n + 1)) > "$EDITS/next"\n')
    editor.chmod(0o755)
    edits = tmp_path / "edits"
    edits.mkdir()
    broken = before.decode().replace("metadata:", "metadata: [")
    fixed = before.decode().replace("\nvim\n", "\nneovim, token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8\n")
    (edits / "1").write_text(broken)
    (edits / "2").write_text(fixed)
    (edits / "next").write_text("1\n")
    monkeypatch.setenv("VISUAL", str(editor))
    monkeypatch.setenv("EDITS", str(edits))

    assert repl("/memory edit user-prefers-vim", answer=False).startswith("user-prefers-vim was not changed: ")
    assert path.read_bytes() == before and repl.questions[0].startswith("user-prefers-vim was not saved: ")

    (edits / "next").write_text("1\n")
    out = repl("/memory edit user-prefers-vim", answer=True)  # broken first, then re-opened and fixed
    saved = r"Saved user-prefers-vim \(1 secret\(s\) redacted\)\. Undo with /memory revert [0-9a-f]{7}\.\n"
    assert re.fullmatch(saved, out)
    assert runtime.store.get("user-prefers-vim").content == "neovim, token [REDACTED:github_token]"
    assert runtime.git.log(1)[0].subject == "edit: update user-prefers-vim"
    assert repl("/memory edit nope") == "No memory named nope. /memory list shows them.\n"


def test_the_undo_hint_after_exit_undoes_the_memories_not_the_session_summary(tmp_path: Path) -> None:
    """Issue 14 #6: after exit capture the last commit was the session summary, so a bare /memory revert deleted
    the journal entry and left the memories; /memory diff showed it too, and summaries crowded /memory log."""
    from catcode.memory.builder import build_recall
    from catcode.memory.exit_capture import capture_at_exit

    runtime = make_runtime(tmp_path, extraction(VIM), consolidation(VIM))
    record_exchanges(runtime, 2)
    said: list[str] = []
    capture_at_exit(runtime, said.append)
    with build_recall(runtime) as recall:
        recall.append_summary("- Talked about editors")
    assert runtime.git.log(1)[0].subject.startswith("session-summary: ")
    capture = runtime.git.log(2)[1]
    short = capture.short_sha
    assert said[-1] == f"  Undo with /memory revert {short}, or `catcode memory revert {short}`."

    repl = Repl(runtime)
    assert "session-summary" not in repl("/memory log") and "session-summary" in repl("/memory log --all")
    assert "+name: user-prefers-vim" in repl("/memory diff")
    assert repl("/memory revert").startswith(f"Undid {capture.short_sha} 'session-end: add user-prefers-vim'")
    assert runtime.store.get("user-prefers-vim") is None
    assert list((runtime.paths.project_memory / "journal" / "daily").glob("*.md"))  # the journal is untouched
