"""``catcode memory remote add|show`` and ``catcode memory sync`` as a person runs them (through the real entry point,
in the test process; the console script's own run is ``tests/security/test_sync_remote.py``'s), and ``memory.sync:
auto``: a sync in a process of its own when the prompt is drawn and after the exit capture."""

from __future__ import annotations

import queue
import shutil
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from machines import Machine, bare_remote, git

from catcode.memory.sync.auto import attach_auto_sync
from tests.in_process import run_catcode
from tests.slowness import bound

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def catcode(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"CATCODE_HOME": str(home), "CATCODE_USER_ID": "tester", "HOME": str(home.parent), "PATH": "/usr/bin:/bin"}
    return run_catcode(["memory", *args], env=env, cwd=cwd)


def remote_files(remote: Path) -> str:
    try:
        return git(remote, "ls-tree", "-r", "--name-only", "main")
    except AssertionError:  # no branch yet
        return ""


def test_remote_add_show_and_sync_from_the_command_line(tmp_path: Path) -> None:
    project, remote = tmp_path / "project", bare_remote(tmp_path / "remote.git")
    project.mkdir()
    home = tmp_path / "home" / ".cat-code"
    added = catcode(home, project, "remote", "add", str(remote))
    assert (
        added.returncode == 0 and added.stdout == f"Memory remote set to {remote}. Run `catcode memory sync` to sync.\n"
    )
    Machine(home, project).write("editor", "vim")
    synced = catcode(home, project, "sync")
    assert synced.returncode == 0 and synced.stderr == ""
    assert synced.stdout.startswith(f"Synced with {remote}: received 0 changes, sent ")
    assert "editor.md" in remote_files(remote)
    shown = catcode(home, project, "remote", "show")
    assert shown.stdout.splitlines()[0] == f"Memory remote: {remote} (branch main)"
    again = catcode(home, project, "sync")
    assert again.stdout == f"Memory is up to date with {remote}.\n"


def test_an_unreachable_remote_is_one_line_and_exit_1(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home" / ".cat-code"
    catcode(home, project, "remote", "add", str(tmp_path / "gone.git"))
    Machine(home, project).write("editor", "vim")
    failed = catcode(home, project, "sync")
    assert failed.returncode == 1 and failed.stdout == ""
    assert failed.stderr.startswith(f"catcode: Cannot reach the memory remote {tmp_path / 'gone.git'}: ")
    assert failed.stderr.endswith("Nothing was lost; the next sync tries again.\n") and failed.stderr.count("\n") == 1
    assert Machine(home, project).memories() == {"editor": "vim"}


def test_sync_off_refuses(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home" / ".cat-code"
    write_settings(home, "memory:\n  sync: off\n")
    refused = catcode(home, project, "sync")
    assert refused.returncode == 1
    assert refused.stderr == (
        "catcode: Memory sync is off (memory.sync: off); turn it on with `catcode config set memory.sync manual`.\n"
    )
    write_settings(home, "memory:\n  sync: sometimes\n")
    bad = catcode(home, project, "sync")
    assert bad.returncode == 2 and "sync" in bad.stderr and bad.stderr.count("\n") == 1


def test_config_set_memory_sync_off_writes_off(tmp_path: Path) -> None:
    # YAML 1.1 reads a bare off as false: the command keeps the word the person typed
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home" / ".cat-code"
    write_settings(home, "memory:\n  sync: manual\n")
    env = {"CATCODE_HOME": str(home), "HOME": str(home.parent), "PATH": "/usr/bin:/bin"}
    done = run_catcode(["config", "set", "memory.sync", "off"], env=env, cwd=project)
    assert done.returncode == 0 and done.stdout.startswith('Set memory.sync = "off" in ')
    assert "sync: 'off'" in (home / "settings.yaml").read_text()
    assert catcode(home, project, "sync").stderr.startswith("catcode: Memory sync is off (memory.sync: off)")


def write_settings(home: Path, text: str) -> None:
    """``home``/settings.yaml, private as catcode keeps it."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    (home / "settings.yaml").write_text(text)
    (home / "settings.yaml").chmod(0o600)


def wait_for(check: object, what: str, timeout: float = 60.0) -> None:
    """Poll ``check()`` until it is true (the state a background process leaves), failing after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_auto_syncs_at_start_and_after_exit_without_waiting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project, remote = tmp_path / "project", bare_remote(tmp_path / "remote.git")
    project.mkdir()
    home = tmp_path / "home" / ".cat-code"
    write_settings(home, "memory:\n  sync: auto\n")
    monkeypatch.setenv("CATCODE_HOME", str(home))
    monkeypatch.setenv("CATCODE_USER_ID", "tester")
    machine = Machine(home, project)
    machine.connect(remote)
    machine.write("editor", "vim")
    session = SimpleNamespace(background_starts=[], exit_steps=[])
    attach_auto_sync(session, machine.runtime)
    assert len(session.background_starts) == 1 and len(session.exit_steps) == 1

    session.background_starts[0]()  # the prompt is drawn
    notice = machine.runtime.notices.get(timeout=bound(60))
    assert notice.startswith(f"Synced with {remote}: received 0 changes, sent ")
    assert "editor.md" in remote_files(remote)

    machine.write("shell", "fish")  # during the session
    said: list[str] = []
    process = session.exit_steps[0](said.append)  # after the exit capture
    assert process is not None and process.poll() is None  # started, not waited for: the exit goes on
    assert said == []
    wait_for(lambda: "shell.md" in remote_files(remote), "the exit sync to reach the remote")
    process.wait(timeout=bound(60))


def test_auto_reports_a_failed_start_sync_in_one_notice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home" / ".cat-code"
    write_settings(home, "memory:\n  sync: auto\n")
    monkeypatch.setenv("CATCODE_HOME", str(home))
    monkeypatch.setenv("CATCODE_USER_ID", "tester")
    machine = Machine(home, project)
    machine.connect(tmp_path / "offline.git")
    session = SimpleNamespace(background_starts=[], exit_steps=[])
    attach_auto_sync(session, machine.runtime)
    session.background_starts[0]()
    notice = machine.runtime.notices.get(timeout=bound(60))
    assert notice.startswith("Memory sync failed: Cannot reach the memory remote")
    with pytest.raises(queue.Empty):
        machine.runtime.notices.get_nowait()


def test_auto_needs_a_remote_and_manual_adds_nothing(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home" / ".cat-code"
    write_settings(home, "memory:\n  sync: auto\n")
    machine = Machine(home, project)
    machine.write("editor", "vim")
    session = SimpleNamespace(background_starts=[], exit_steps=[])
    attach_auto_sync(session, machine.runtime)  # no remote set
    assert session.background_starts == [] and session.exit_steps == []
    manual = Machine(tmp_path / "other", project)
    manual.connect(bare_remote(tmp_path / "r.git"))
    attach_auto_sync(session, manual.runtime)
    assert session.background_starts == [] and session.exit_steps == []
