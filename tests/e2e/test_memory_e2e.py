"""Cross-session memory end to end: the seed's walkthrough with the real ``catcode`` in a pseudo-terminal.

Memory requests (extraction, consolidation) are routed by their prompt text through ``server.responder``;
chat turns come from the queue. Every wait is on visible output or on the server's journal; nothing sleeps."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pexpect

from tests.e2e.conftest import Catcode
from tests.fakes import FakeAnthropicServer, status, text, tool_use
from tests.fakes.anthropic_server import RecordedRequest, Step
from tests.slowness import bound

Spawn = Callable[..., Catcode]

EXTRACTOR = "You are a memory extractor"
CONSOLIDATOR = "You are a memory consolidator"
SESSION_SUMMARY = "Summarise this coding session"
COMPILER = "You are compiling the"
MEMORY_ON = {"CATCODE_MEMORY_ENABLED": "true"}
INDEX_HEADER = "# Persistent Memory"
EXPECT = 15.0  # seconds; every wait returns as soon as the text shows

VIM = {
    "type": "user",
    "name": "user-prefers-vim",
    "description": "User edits with vim",
    "content": "The user edits with vim and never wants the tests directory touched.",
}
VIM_FILE_HEAD = "---\nname: user-prefers-vim\ndescription: User edits with vim\nmetadata:\n  type: user\n"
VIM_FILE = VIM_FILE_HEAD + f"  createdAt: 2026-08-06\n  updatedAt: 2026-08-06\n---\n{VIM['content']}\n"
VIM_INDEX = "# Memory Index\n\n- [user-prefers-vim](user-prefers-vim.md) — User edits with vim\n"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def first_text(body: dict[str, Any]) -> str:
    """The text of the first message of a request body."""
    content = (body.get("messages") or [{}])[0].get("content", "")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, dict))


def kind_of(body: dict[str, Any]) -> str:
    """``extract``, ``consolidate`` or ``chat``: what a request to the model is for."""
    first = first_text(body)
    if first.startswith(EXTRACTOR):
        return "extract"
    if first.startswith(CONSOLIDATOR):
        return "consolidate"
    if first.startswith(SESSION_SUMMARY):
        return "summary"
    if first.startswith(COMPILER):
        return "compile"
    return "chat"


def candidates(*entries: dict[str, str]) -> Step:
    """The extractor's reply proposing ``entries``."""
    return text(json.dumps({"candidates": list(entries)}))


def adds(*entries: dict[str, str]) -> Step:
    """The consolidator's reply adding every entry."""
    return text(json.dumps({"operations": [{"action": "add", "targetName": None, "entry": e} for e in entries]}))


@dataclass
class MemoryModel:
    """``server.responder``: answers extraction, consolidation and journal (session summary, compile) requests
    with the current steps (a test changes them between phases) and leaves chat turns to the queue."""

    extract: Step = field(default_factory=lambda: candidates())
    consolidate: Step = field(default_factory=lambda: adds())
    summary: Step = field(default_factory=lambda: text("- Talked about editor preferences."))

    def __call__(self, body: dict[str, Any]) -> Step | None:
        kind = kind_of(body)
        steps = {
            "extract": self.extract,
            "consolidate": self.consolidate,
            "summary": self.summary,
            "compile": self.summary,
        }
        return steps.get(kind)


def of_kind(server: FakeAnthropicServer, kind: str) -> list[RecordedRequest]:
    """The journal's requests of one kind."""
    return [r for r in server.requests() if kind_of(r.body) == kind]


def memory_blocks(request: RecordedRequest) -> list[str]:
    """The injected ``# Persistent Memory`` system blocks of a request (the base prompt only mentions it)."""
    return [b["text"] for b in request.system_blocks if b.get("text", "").startswith(INDEX_HEADER)]


def conversation_lines(request: RecordedRequest) -> list[str]:
    """The ``## Conversation`` lines of an extraction request."""
    return first_text(request.body).split("\n## Conversation\n", 1)[1].splitlines()


def memory_root(home_dir: Path) -> Path:
    """CATCODE_HOME/memory."""
    return home_dir / ".cat-code" / "memory"


def user_scope(home_dir: Path) -> Path:
    """The one user scope folder, ``memory/users/<16 hex>``."""
    (folder,) = (memory_root(home_dir) / "users").iterdir()
    assert re.fullmatch(r"[0-9a-f]{16}", folder.name)
    return folder


def project_scope(home_dir: Path) -> Path:
    """The one project scope folder, ``memory/projects/<key>``."""
    (folder,) = (memory_root(home_dir) / "projects").iterdir()
    return folder


def git_log(home_dir: Path, form: str = "%s") -> list[str]:
    """Subjects (or ``form``) of the memory repository's commits, newest first."""
    out = subprocess.run(
        ["git", "-C", str(memory_root(home_dir)), "log", f"--format={form}"],
        env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"},
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.splitlines()


def chat(cat: Catcode, server: FakeAnthropicServer, line: str, answer: str) -> None:
    """One exchange: queue the answer, type the line, wait for the answer and the next prompt."""
    server.enqueue(text(answer))
    cat.say(line)
    cat.expect_text(answer, timeout=EXPECT)
    cat.prompt()


def ended(cat: Catcode) -> int:
    """Wait for the process to end after Ctrl+D was pressed; its exit code."""
    cat.child.expect(pexpect.EOF, timeout=EXPECT)
    cat.child.close()
    return cat.child.exitstatus if cat.child.exitstatus is not None else -(cat.child.signalstatus or 0)


SAVING = "Saving memories… in the background: what is saved is shown at your next start here."
LAST_SESSION = "From the end of your last session here:"
CAPTURED = 60.0  # seconds for the capture after an exit: a new process, its imports, the model's replies


def capture_done(home_dir: Path, timeout: float = CAPTURED) -> list[str]:
    """Wait for the capture an exit handed to a process of its own (its report appears, then its upkeep ends: the
    lock is free); the lines it left for the next start (still there for it to show)."""
    import time

    from filelock import FileLock

    cache = home_dir / ".cat-code" / "cache"
    deadline = time.monotonic() + timeout
    while not list((cache / "reports").glob("*.jsonl")):
        assert time.monotonic() < deadline, "the capture after the exit left no report"
        time.sleep(0.05)
    (lock,) = (cache / "memory").glob("upkeep-*.lock")
    with FileLock(str(lock), timeout=max(1.0, deadline - time.monotonic())):
        pass
    return [line for report in (cache / "reports").glob("*.jsonl") for line in _lines(report)]


def _lines(report: Path) -> list[str]:
    return [line for row in report.read_text(encoding="utf-8").splitlines() for line in json.loads(row)]


def plain(output: str) -> str:
    """Terminal output without escape sequences and carriage returns."""
    return ANSI.sub("", output).replace("\r", "")


def test_walkthrough_capture_injection_tools_and_commands(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    model = MemoryModel(extract=candidates(VIM), consolidate=adds(VIM))
    fake_server.responder = model

    # Session 1: an empty store injects nothing; the preferences are captured at Ctrl+D.
    cat = spawn_catcode(env=MEMORY_ON)
    cat.prompt()
    chat(cat, fake_server, "用 vim 编辑，别动 tests 目录", "好的，记住了。")
    assert memory_blocks(fake_server.requests()[0]) == []
    chat(cat, fake_server, "And keep answers short.", "Understood.")
    cat.send("\x04")
    cat.expect_text(SAVING, timeout=EXPECT)
    assert ended(cat) == 0  # at once: the capture runs after the exit, in a process of its own
    said = capture_done(home_dir)
    assert said[0] == "Memory: 1 added, 0 updated — /memory list shows them"
    assert said[1] == "  + user-prefers-vim — User edits with vim (all projects)"
    assert said[2].startswith("  Undo with /memory revert ")
    assert len(of_kind(fake_server, "extract")) == 1 and len(of_kind(fake_server, "consolidate")) == 1
    (extraction,) = of_kind(fake_server, "extract")
    assert conversation_lines(extraction) == [
        "USER: 用 vim 编辑，别动 tests 目录",
        "ASSISTANT: 好的，记住了。",
        "USER: And keep answers short.",
        "ASSISTANT: Understood.",
    ]
    scope = user_scope(home_dir)
    vim_file = scope / "user-prefers-vim.md"
    assert vim_file.read_text().startswith(VIM_FILE_HEAD)
    assert re.search(r"\n  createdAt: \d{4}-\d{2}-\d{2}\n  updatedAt: \d{4}-\d{2}-\d{2}\n---\n", vim_file.read_text())
    assert vim_file.read_text().endswith("---\n" + VIM["content"] + "\n")
    assert (scope / "MEMORY.md").read_text() == VIM_INDEX
    newest, capture = git_log(home_dir)[:2]
    assert newest.startswith("session-summary: ") and capture == "session-end: add user-prefers-vim"
    # Issue 14 #6: the undo hint names the change that added the memory, not the session summary after it.
    hint = re.search(r"Undo with /memory revert ([0-9a-f]{7}), or `catcode memory revert \1`\.", said[2])
    assert hint is not None and git_log(home_dir, "%h %s")[1] == f"{hint[1]} session-end: add user-prefers-vim"
    chats_before = len(of_kind(fake_server, "chat"))

    # Session 2: it first says what the capture after the last exit did; the index is injected; memory_write asks
    # first and writes at once; the /memory commands.
    model.extract = candidates()  # nothing new at this exit
    cat = spawn_catcode(env=MEMORY_ON)
    cat.expect_text(LAST_SESSION, timeout=EXPECT)
    cat.expect_text("Memory: 1 added, 0 updated — /memory list shows them", timeout=EXPECT)
    cat.prompt()
    fake_server.enqueue(
        tool_use(
            "memory_write",
            {
                "name": "api-gotcha",
                "type": "reference",
                "description": "The billing API returns cents",
                "content": "GET /billing returns amounts in cents, not euros.",
            },
        ),
        text("Saved the gotcha."),
    )
    cat.say("Remember that billing returns cents.")
    cat.expect_text("Allow memory_write? [y/n/a", timeout=EXPECT)
    first = of_kind(fake_server, "chat")[chats_before]
    (index,) = memory_blocks(first)
    assert index.startswith(f"{INDEX_HEADER}\n\nThe following memories were saved from previous sessions.")
    assert "\n\n## user-prefers-vim\nUser edits with vim" in index
    cat.say("y")
    cat.expect_text("Saved the gotcha.", timeout=EXPECT)
    cat.prompt()
    gotcha = project_scope(home_dir) / "api-gotcha.md"
    assert "GET /billing returns amounts in cents" in gotcha.read_text()  # written while the session runs

    fake_server.enqueue(
        tool_use("memory_write", {"name": "one-off", "type": "user", "description": "x", "content": "y"}),
        text("Not saved."),
    )
    cat.say("Remember something trivial.")
    cat.expect_text("Allow memory_write? [y/n/a", timeout=EXPECT)
    cat.say("n")
    cat.expect_text("Not saved.", timeout=EXPECT)
    cat.prompt()
    assert not list(memory_root(home_dir).rglob("one-off.md"))

    cat.say("/memory list")
    cat.expect_text("user-prefers-vim - User edits with vim (user, all projects)", timeout=EXPECT)
    cat.expect_text("api-gotcha - The billing API returns cents (reference, this project)", timeout=EXPECT)
    cat.prompt()
    cat.say("/memory show user-prefers-vim")
    cat.expect_text("## user-prefers-vim (user, all projects)", timeout=EXPECT)
    cat.expect_text(VIM["content"], timeout=EXPECT)
    cat.prompt()
    files = {p: p.read_bytes() for p in (vim_file, gotcha)}
    cat.say("/memory clear")
    cat.expect_text(
        "Delete all 2 memories (1 for all projects, 1 for this project)? This is a git commit you can revert.",
        timeout=EXPECT,
    )
    cat.say("y")
    deleted = "Deleted 2 memories (1 for all projects, 1 for this project). Undo with /memory revert "
    cat.expect_text(deleted, timeout=EXPECT)
    cat.prompt()
    assert not vim_file.exists() and not gotcha.exists()
    cat.say("/memory revert")
    cat.expect_text("Undid", timeout=EXPECT)
    cat.prompt()
    assert {p: p.read_bytes() for p in files} == files
    assert "[y/N] [y/N]" not in cat.output, "the clear question shows its [y/N] once"
    assert cat.exit() == 0
    # The clear marked what was said before it as processed: the second exit had nothing left to review.
    assert len(of_kind(fake_server, "extract")) == 1 and len(of_kind(fake_server, "consolidate")) == 1
    fake_server.assert_complete()


def test_failing_capture_exits_cleanly_and_leaves_memory_alone(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    # A memory written by hand in the seed's format: the store reads it, and nothing may rewrite it.
    scope = memory_root(home_dir) / "users" / hashlib.sha256(b"tester").hexdigest()[:16]
    scope.mkdir(parents=True)
    (scope / "user-prefers-vim.md").write_text(VIM_FILE)
    (scope / "MEMORY.md").write_text(VIM_INDEX)
    before = {p: p.read_bytes() for p in scope.iterdir()}
    failing = status(500)
    fake_server.responder = MemoryModel(extract=failing, consolidate=failing)

    cat = spawn_catcode(env={**MEMORY_ON, "CATCODE_USER_ID": "tester", "CATCODE_MAX_RETRIES": "0"})
    cat.prompt()
    chat(cat, fake_server, "The billing API is flaky today.", "Sorry to hear that.")
    assert "\n\n## user-prefers-vim\nUser edits with vim" in memory_blocks(fake_server.requests()[0])[0]
    chat(cat, fake_server, "Let's stop here.", "Bye.")
    cat.send("\x04")
    cat.expect_text(SAVING, timeout=EXPECT)
    assert ended(cat) == 0
    lines = capture_done(home_dir)
    assert len(lines) == 1 and lines[0].startswith("Memory capture failed ("), lines
    assert [r.status for r in of_kind(fake_server, "extract")] == [500] and not of_kind(fake_server, "consolidate")
    assert {p: p.read_bytes() for p in scope.iterdir()} == before


def test_a_clear_from_another_process_is_not_undone_at_the_exit_of_a_live_session(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path, project: Path, catcode_env: dict[str, str]
) -> None:
    """Issue 14 #9: a session that was running during `catcode memory clear --yes` re-added, at its exit, memories
    from what was typed before the clear. A clear marks what was said before it, in every project, as processed;
    what is said after it is remembered as usual."""
    from tests.e2e.conftest import catcode_argv

    scope = memory_root(home_dir) / "users" / hashlib.sha256(b"tester").hexdigest()[:16]
    scope.mkdir(parents=True)
    (scope / "user-prefers-vim.md").write_text(VIM_FILE)  # remembered from an earlier session
    env = {**MEMORY_ON, "CATCODE_USER_ID": "tester"}
    model = MemoryModel(extract=candidates(VIM), consolidate=adds(VIM))
    fake_server.responder = model
    cat = spawn_catcode(env=env)
    cat.prompt()
    chat(cat, fake_server, "用 vim 编辑，别动 tests 目录", "好的，记住了。")
    chat(cat, fake_server, "And keep answers short.", "Understood.")

    # A second process: the person clears memory from another terminal while the session runs.
    clear = subprocess.run(
        [*catcode_argv(), "memory", "clear", "--yes"],
        cwd=project, env={**catcode_env, **env}, capture_output=True, text=True, timeout=bound(60),
    )  # fmt: skip
    assert clear.returncode == 0, clear.stderr
    assert clear.stdout.startswith("Deleted 1 memory (1 for all projects).")

    chat(cat, fake_server, "From now on I use helix.", "Noted.")
    chat(cat, fake_server, "It is configured in ~/.config/helix.", "Good.")
    helix = {**VIM, "name": "user-prefers-helix", "description": "User edits with helix", "content": "helix"}
    model.extract, model.consolidate = candidates(helix), adds(helix)
    assert cat.exit() == 0
    capture_done(home_dir)
    (extraction,) = of_kind(fake_server, "extract")
    lines = conversation_lines(extraction)
    assert "USER: From now on I use helix." in lines and not any("vim" in line for line in lines)
    names = [p.stem for p in memory_root(home_dir).rglob("*.md") if p.name != "MEMORY.md" and "journal" not in p.parts]
    assert names == ["user-prefers-helix"]
