"""Issue 22 §3: what a cloned project can make catcode read at start. AGENTS.md / CLAUDE.md at any folder level
that is a link out of the project (``/proc/self/environ``, a file holding a secret) is skipped with one line, in
the REPL and in ``-p``; only regular files are read; an ``@import`` link loop is skipped with one line; and a
1 GiB sparse AGENTS.md is cut without being read."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from tests.e2e.conftest import Catcode
from tests.e2e.test_print_mode import run, run_with_peak
from tests.fakes import FakeAnthropicServer, text

SECRET = "sk-ant-api03-ENVIRONMENT-MUST-NOT-LEAVE"


def plant(project: Path, tmp_path: Path) -> Path:
    """Links out of the project at two folder levels; returns the sub-folder to start in."""
    outside = tmp_path / "outside.md"
    outside.write_text(f"The key is {SECRET}\n")
    (project / "AGENTS.md").symlink_to("/proc/self/environ")
    sub = project / "src"
    sub.mkdir()
    (sub / "CLAUDE.md").symlink_to(outside)
    (project / "CLAUDE.md").write_text("Use tabs.\n")
    return sub


def test_links_out_of_the_project_are_skipped_in_print_mode(
    project: Path, tmp_path: Path, fake_server: FakeAnthropicServer
) -> None:
    sub = plant(project, tmp_path)
    fake_server.enqueue(text("ok"))
    proc = run(sub, fake_server, "-p", "hi", extra_env={"LEAKY": SECRET})
    assert proc.returncode == 0, proc.stderr
    body = fake_server.requests()[0].all_text
    assert SECRET not in body and "LEAKY" not in body and "Use tabs." in body
    assert proc.stderr.count("skipped (a link to outside the project)") == 2


def test_links_out_of_the_project_are_skipped_in_the_repl(
    spawn_catcode: Callable[..., Catcode], project: Path, tmp_path: Path, fake_server: FakeAnthropicServer
) -> None:
    plant(project, tmp_path)
    (project / "src" / "CLAUDE.md").unlink()
    fake_server.enqueue(text("ok"))
    cat = spawn_catcode(env={"LEAKY": SECRET})
    cat.expect_text("Instructions: AGENTS.md skipped (a link to outside the project)")
    cat.prompt()
    cat.say("hi")
    cat.expect_text("ok")
    cat.prompt()
    body = fake_server.requests()[0].all_text
    assert SECRET not in body and "Use tabs." in body
    assert cat.exit() == 0


def test_an_import_loop_and_a_fifo_are_skipped_with_one_line(project: Path, fake_server: FakeAnthropicServer) -> None:
    (project / "CLAUDE.md").write_text("Style: @loop.md and @pipe.md\n")
    (project / "loop.md").symlink_to("loop.md")
    os.mkfifo(project / "fifo")
    (project / "AGENTS.md").symlink_to("fifo")
    fake_server.enqueue(text("ok"))
    proc = run(project, fake_server, "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    assert "unexpected error" not in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.count("Instructions: @loop.md skipped (a symlink loop)") == 1
    assert proc.stderr.count("Instructions: AGENTS.md skipped (not a regular file)") == 1
    assert "Style: @loop.md" in fake_server.requests()[0].all_text


def test_a_sparse_gigabyte_is_cut_without_being_read(project: Path, fake_server: FakeAnthropicServer) -> None:
    with open(project / "AGENTS.md", "wb") as handle:
        handle.write(b"Keep answers short.\n")
        handle.truncate(1 << 30)
    fake_server.enqueue(text("ok"))
    proc, peak_kib = run_with_peak(project, fake_server, "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    assert peak_kib < 400 * 1024  # a full read would need over 1 GiB
    system = fake_server.requests()[0].all_text
    assert "Keep answers short." in system and "AGENTS.md cut at 40,000 characters" in system
