"""Issue 38 §3, a full disk, through the real binary: ``CATCODE_HOME`` on a small tmpfs filled to the last byte.

A turn still answers and exits 0, with one line saying history.jsonl cannot be written (never logging's tracebacks);
``catcode memory search`` still finds what was remembered (a copy of the index in memory) with one line saying it is
not saved; once there is room again everything is written and saved as before, and nothing was corrupted. Mounting
needs root: without it the test is skipped, saying so."""

from __future__ import annotations

import errno
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import FakeAnthropicServer, text, tool_use
from tests.faults.helpers import run_catcode

SIZE = "8m"
VIM = {"name": "user-prefers-vim", "type": "user", "description": "Edits with vim", "content": "Uses vim daily."}
LONG = "Please look at this. " * 400  # ~8 KB: more than a page, so its line cannot fit in what a page has left


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of ``SIZE`` mounted at ``tmp_path / "home"`` (unmounted afterwards)."""
    mount = tmp_path / "home"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.decode().strip() or done.returncode}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def _fill(disk: Path) -> Path:
    """Write zeros until the file system is full; the filler's path."""
    filler = disk / "filler"
    with filler.open("wb") as handle:
        try:
            while True:
                handle.write(b"\0" * 65536)
                handle.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    for size in (4096, 512, 1):  # what is left in a partly used block too
        try:
            with (disk / f"filler-{size}").open("wb") as handle:
                while True:
                    handle.write(b"\0" * size)
                    handle.flush()
        except OSError:
            pass
    return filler


def _quiet(stderr: str) -> None:
    assert "Traceback" not in stderr and "Logging error" not in stderr, stderr
    assert len(stderr.splitlines()) <= 3, stderr


def test_a_full_disk_is_one_line_reads_keep_working_and_nothing_is_lost(small_disk: Path, tmp_path: Path) -> None:
    project, home = tmp_path / "project", small_disk
    project.mkdir()
    (home / ".cat-code").mkdir()
    (home / ".cat-code" / "settings.yaml").write_text("permissions:\n  allow:\n    - memory_write\n")
    with FakeAnthropicServer() as server:
        server.responder = lambda body: text("[]") if "You are a memory extractor" in str(body) else None
        server.enqueue(tool_use("memory_write", VIM), text("Saved."))
        assert run_catcode(project, home, server, "-p", "remember vim").returncode == 0
        assert run_catcode(project, home, None, "memory", "search", "vim").returncode == 0  # facts.db made
        # A memory written by hand: the next search has something to index (an index in step is never written).
        (folder,) = (home / ".cat-code" / "memory" / "projects").iterdir()
        hand = folder / "editor-theme.md"
        hand.write_text(
            "---\nname: editor-theme\ndescription: The vim theme\nmetadata:\n  type: project\n  createdAt: 2026-08-06\n"
            "  updatedAt: 2026-08-06\n---\nvim uses gruvbox.\n"
        )
        hand.chmod(0o600)

        filler = _fill(home)
        server.enqueue(text("Here is my answer."))
        turn = run_catcode(project, home, server, "-p", LONG)
        assert turn.returncode == 0, turn.stderr
        assert turn.stdout.strip() == "Here is my answer."
        _quiet(turn.stderr)
        assert "history.jsonl: No space left on device" in turn.stderr
        assert "held in memory and written once there is room" in turn.stderr

        search = run_catcode(project, home, None, "memory", "search", "vim")
        assert search.returncode == 0, search.stderr
        assert "user-prefers-vim" in search.stdout and "Uses vim daily" in search.stdout
        assert "editor-theme" in search.stdout
        _quiet(search.stderr)
        assert "the search index cannot be saved" in search.stderr

        filler.unlink()  # room again
        for extra in home.glob("filler-*"):
            extra.unlink()
        server.enqueue(text("Second answer."))
        again = run_catcode(project, home, server, "-p", "and now?")
        assert again.returncode == 0 and again.stderr == "", again.stderr
    search = run_catcode(project, home, None, "memory", "search", "now")
    assert search.returncode == 0 and search.stderr == "", search.stderr
    assert "and now?" in search.stdout  # the new turn is indexed, and the index saved again
    root = home / ".cat-code" / "memory"
    git = ["git", "-C", str(root)]
    assert subprocess.run([*git, "fsck", "--no-progress"], capture_output=True).returncode == 0
    assert subprocess.run([*git, "status", "--porcelain"], capture_output=True, text=True).stdout == ""
    assert "Uses vim daily." in next((root / "users").rglob("user-prefers-vim.md")).read_text()
