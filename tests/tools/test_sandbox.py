"""The bash tool inside the sandbox (issue 22 §1): what the fence lets through and holds, that timeout, interrupt,
live output, the environment and the working directory work through bubblewrap as without it, the placeholders
that keep absent protected paths uncreatable, and the fallback when bubblewrap cannot start."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from catcode.sandbox.fence import Fence, make_fence
from catcode.sandbox.probe import _probe, availability
from catcode.settings.sandbox import SandboxSettings
from catcode.tools.base import ToolContext, ToolResult
from catcode.tools.shell import BashInput, bash
from tests.slowness import bound

needs_bwrap = pytest.mark.skipif(not availability().ok, reason=f"needs bubblewrap: {availability().problem}")


def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        threading.Event().wait(0.02)
    return condition()


def fenced(project: Path, **settings: object) -> tuple[ToolContext, Fence]:
    fence = make_fence(SandboxSettings(**settings), project, [])
    return ToolContext(project_root=project, sandbox=fence), fence


def run(ctx: ToolContext, command: str, **kw: object) -> ToolResult:
    return bash.function(BashInput(command=command, **kw), ctx)


def processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if marker in cmdline and state != "Z":
                found.append(int(entry.name))
    return found


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@needs_bwrap
def test_environment_and_working_directory_are_the_persons(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CATCODE_TEST_VALUE", "kept as is")
    ctx, fence = fenced(project)
    result = run(ctx, 'echo "$CATCODE_TEST_VALUE"; pwd; echo "$TMPDIR"')
    assert result.text.splitlines()[:3] == ["kept as is", str(project), str(fence.temp_dir())]
    temp = fence.temp_dir()
    fence.close()  # at the session's end
    assert not temp.exists()


@needs_bwrap
def test_the_timeout_kills_everything_the_command_started(project: Path) -> None:
    ctx, fence = fenced(project)
    marker = f"{os.getpid()}7.25"
    started = time.monotonic()
    result = run(ctx, f"setsid sleep {marker} & (sleep {marker} &) ; sleep {marker}", timeout=1)
    assert "timed out after 1s" in result.text and result.is_error
    assert time.monotonic() - started < 6
    assert wait_for(lambda: not processes_with(f"sleep {marker}"))
    fence.close()


@needs_bwrap
def test_output_streams_live_and_an_interrupt_ends_the_command(project: Path) -> None:
    ctx, fence = fenced(project)
    seen: list[str] = []

    def live(text: str) -> None:
        seen.append(text)
        if "first" in "".join(seen):
            ctx.cancel.set()  # the first line arrived while the command still runs

    ctx.output = live
    marker = f"{os.getpid()}9.5"
    result = run(ctx, f"echo first; sleep {marker}; echo never")
    assert result.text.startswith("first") and result.text.endswith("Command interrupted")
    assert "never" not in result.text
    assert wait_for(lambda: not processes_with(f"sleep {marker}"))
    fence.close()


@needs_bwrap
def test_read_only_mode_writes_nowhere(project: Path) -> None:
    (project / "a.txt").write_text("before\n")
    ctx, fence = fenced(project, mode="read-only")
    result = run(ctx, "cat a.txt; echo after > a.txt; touch b; touch $TMPDIR/c-$$")
    assert "before" in result.text and "Read-only file system" in result.text
    assert sorted(p.name for p in project.iterdir()) == ["a.txt"]
    assert (project / "a.txt").read_text() == "before\n"
    fence.close()


@needs_bwrap
def test_writable_folders_and_additional_dirs_are_writable(project: Path, tmp_path: Path) -> None:
    extra, added, other = tmp_path / "extra", tmp_path / "added", tmp_path / "other"
    for folder in (extra, added, other):
        folder.mkdir()
    fence = Fence(SandboxSettings(writable=[str(extra)]), project, [added], availability())
    ctx = ToolContext(project_root=project, sandbox=fence)
    result = run(ctx, f"touch {extra}/e {added}/a {other}/o")
    assert (extra / "e").exists() and (added / "a").exists() and not (other / "o").exists()
    assert "Read-only file system" in result.text
    fence.close()


@needs_bwrap
def test_network_off_reaches_nothing_and_on_reaches_the_listener(project: Path) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(10)
    port = server.getsockname()[1]
    connect = f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 3); print('connected')\""
    off, fence_off = fenced(project)
    assert "connected" not in run(off, connect).text
    on, fence_on = fenced(project, network="on")
    assert "connected" in run(on, connect).text
    conn, _ = server.accept()  # exactly the one made with the network on
    conn.close()
    server.close()
    fence_off.close()
    fence_on.close()


@needs_bwrap
def test_a_project_without_git_cannot_get_one_and_is_left_as_it_was(project: Path) -> None:
    ctx, fence = fenced(project)
    result = run(ctx, "git init -q . ; mkdir -p .git/hooks; echo x > .git/config; mkdir .cat-code; ls -A")
    assert "Read-only file system" in result.text
    assert sorted(p.name for p in project.iterdir()) == []  # no placeholder left behind
    fence.close()


@needs_bwrap
def test_claude_codes_folder_is_read_only_inside_the_fence(project: Path) -> None:
    """A hook planted in .claude/settings.json would run at the next start, outside the fence."""
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text("{}")
    ctx, fence = fenced(project)
    result = run(ctx, "echo '{\"hooks\": {}}' > .claude/settings.json; mkdir .claude/commands")
    assert "Read-only file system" in result.text
    assert (project / ".claude" / "settings.json").read_text() == "{}"
    assert not (project / ".claude" / "commands").exists()
    fence.close()


@needs_bwrap
def test_a_missing_hooks_folder_cannot_be_planted(project: Path) -> None:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    for hook in (project / ".git" / "hooks").iterdir():
        hook.unlink()
    (project / ".git" / "hooks").rmdir()
    ctx, fence = fenced(project)
    run(ctx, "mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit")
    assert not (project / ".git" / "hooks").exists()
    fence.close()


@needs_bwrap
def test_a_placeholder_outlives_the_first_of_two_concurrent_commands(project: Path) -> None:
    ctx, fence = fenced(project)
    results: dict[str, ToolResult] = {}
    waiter = threading.Thread(
        target=lambda: results.setdefault(
            "slow", run(ctx, "while [ ! -e go ]; do sleep 0.02; done; mkdir .git/x && echo planted; ls -A .git")
        )
    )
    waiter.start()
    assert wait_for(lambda: (project / ".git").is_dir())
    assert run(ctx, "true").text == "exit code: 0"  # starts and ends while the slow one still runs
    (project / "go").touch()
    waiter.join(bound(30))
    assert "planted" not in results["slow"].text and "Read-only file system" in results["slow"].text
    assert sorted(p.name for p in project.iterdir()) == ["go"]
    fence.close()


def test_without_bubblewrap_the_fence_is_down_and_says_why(project: Path, tmp_path: Path) -> None:
    probed = _probe(str(tmp_path / "no-bin"))
    assert not probed.ok and "bubblewrap (bwrap) not found" in (probed.problem or "")
    fence = Fence(SandboxSettings(), project, [], probed)
    assert not fence.active and fence.label() == "sandbox unavailable"
    assert "not available" in fence.status() and "bubblewrap" in fence.status()
    outside = tmp_path / "outside.txt"
    result = run(ToolContext(project_root=project, sandbox=fence), f"echo unfenced > {outside}")
    assert result.text == "exit code: 0" and outside.exists()  # today's behaviour (the prompts stand alone)


def test_the_probe_is_asked_once_per_path(tmp_path: Path) -> None:
    path = str(tmp_path / "empty-bin")
    assert _probe(path) is _probe(path)


def test_off_is_not_probed_and_not_unavailable(project: Path) -> None:
    fence = make_fence(SandboxSettings(mode="off"), project, [])
    assert not fence.active and fence.unavailable is None and fence.label() == "sandbox off"


@needs_bwrap
def test_leaving_the_sandbox_runs_unfenced(project: Path, tmp_path: Path) -> None:
    ctx, fence = fenced(project)
    outside = tmp_path / "left.txt"
    inside = run(ctx, f"echo x > {outside}")
    assert "outside_sandbox: true" in inside.text and not outside.exists()
    left = bash.function(BashInput(command=f"echo x > {outside}", outside_sandbox=True, reason="test"), ctx)
    assert left.text == "exit code: 0" and outside.read_text() == "x\n"
    fence.close()


def test_yaml_switches_and_bad_values(tmp_path: Path) -> None:
    import yaml

    data = yaml.safe_load("mode: off\nnetwork: on\n")
    assert SandboxSettings.model_validate(data).model_dump(include={"mode", "network"}) == {
        "mode": "off",
        "network": "on",
    }
    defaults = {"mode": "workspace-write", "network": "off", "writable": [], "hidden": [], "readable": [], "env": []}
    assert SandboxSettings().model_dump() == defaults
    with pytest.raises(ValueError):
        SandboxSettings(mode="sometimes")


@needs_bwrap
def test_a_linked_worktree_commits_but_its_hooks_and_config_stay_read_only(tmp_path: Path) -> None:
    main, linked = tmp_path / "main", tmp_path / "linked"
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=n"]
    subprocess.run(["git", "init", "-q", str(main)], check=True)
    (main / "a").write_text("a\n")
    subprocess.run([*git, "-C", str(main), "add", "a"], check=True)
    subprocess.run([*git, "-C", str(main), "commit", "-qm", "first"], check=True)
    subprocess.run(["git", "-C", str(main), "worktree", "add", "-q", str(linked)], check=True)
    config = (main / ".git" / "config").read_text()
    ctx, fence = fenced(linked)
    result = run(
        ctx,
        "echo b > b && git add b && git -c user.email=a@b -c user.name=n commit -qm second"
        " && git log --oneline | wc -l;"
        f" echo evil > {main}/.git/hooks/post-commit; git config core.fsmonitor evil; echo 'gitdir: /x' > .git",
    )
    assert result.text.splitlines()[0] == "2", result.text
    assert not (main / ".git" / "hooks" / "post-commit").exists()
    assert (main / ".git" / "config").read_text() == config
    assert (linked / ".git").read_text().startswith(f"gitdir: {main}")
    fence.close()


@needs_bwrap
def test_a_writable_folder_around_the_project_does_not_let_it_be_swapped(tmp_path: Path) -> None:
    project = tmp_path / "work" / "project"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    fence = Fence(SandboxSettings(writable=[str(tmp_path / "work")]), project, [], availability())
    ctx = ToolContext(project_root=project, sandbox=fence)
    result = run(ctx, f"cd {tmp_path / 'work'} && mv project moved; touch fine; ls")
    assert "Device or resource busy" in result.text and (tmp_path / "work" / "fine").exists()
    assert (project / ".git").is_dir()
    fence.close()


@needs_bwrap
def test_links_made_outside_during_a_session_are_held_after_the_next_message_or_outside_command(
    tmp_path: Path,
) -> None:
    project, store = tmp_path / "project", tmp_path / "store"
    project.mkdir()
    store.mkdir()
    (store / "a.js").write_text("a\n")
    (store / "b.js").write_text("b\n")
    ctx, fence = fenced(project)
    assert run(ctx, "true").text == "exit code: 0"
    os.link(store / "a.js", project / "a.js")  # the person, in another terminal (a pnpm install)
    fence.rescan()  # the person's next message
    assert "Read-only file system" in run(ctx, "echo evil >> a.js").text
    run(ctx, f"ln {store / 'b.js'} b.js", outside_sandbox=True)  # allowed to leave the fence
    assert "Read-only file system" in run(ctx, "echo evil >> b.js").text
    assert (store / "a.js").read_text() == "a\n" and (store / "b.js").read_text() == "b\n"
    fence.close()
