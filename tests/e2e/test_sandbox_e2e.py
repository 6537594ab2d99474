"""The sandbox through the real binary in a terminal (issue 22 §1): bypass mode does not skip the fence and a
command leaving it always asks, naming the fence; where bubblewrap cannot start, one line says so at start (and in
``catcode doctor``) and bash asks as before; ``--sandbox`` picks the fence and ``/permissions`` shows it (the toolbar,
which a pty without cursor-position reports does not draw, is tested in ``tests/ui``)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from catcode.sandbox.probe import availability
from tests.e2e.conftest import Catcode, catcode_argv
from tests.fakes import FakeAnthropicServer, text, tool_use
from tests.in_process import run_catcode
from tests.slowness import bound

Spawn = Callable[..., Catcode]
needs_bwrap = pytest.mark.skipif(not availability().ok, reason=f"needs bubblewrap: {availability().problem}")


@needs_bwrap
def test_bypass_keeps_the_fence_and_leaving_it_asks_naming_it(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    inside, left = home_dir / "inside.txt", home_dir / "left.txt"
    fake_server.enqueue(
        tool_use("bash", {"command": f"echo x > {inside}"}),
        tool_use("bash", {"command": f"touch {left}", "outside_sandbox": True, "reason": "write to home"}),
        text("Refused, fine."),
        tool_use("bash", {"command": f"touch {left}", "outside_sandbox": True, "reason": "write to home"}),
        text("Done."),
    )
    cat = spawn_catcode("--permission-mode", "bypass")
    cat.prompt()
    cat.say("write it")
    cat.expect_text("Runs OUTSIDE the sandbox (workspace-write, network off)")
    cat.expect_text("reason: write to home")
    cat.expect_text("a: always allow bash_outside(touch*) this session")
    cat.expect_text("Allow Bash?")
    assert not inside.exists()  # the first call ran, fenced, with no question: bypass does not skip the fence
    assert "Read-only file system" in fake_server.requests()[1].all_text  # what the model was told
    cat.say("n")
    cat.expect_text("Refused, fine.")
    cat.prompt()
    assert not left.exists()
    cat.say("again")
    cat.expect_text("Allow Bash?")
    cat.say("y")
    cat.expect_text("Done.")
    cat.prompt()
    assert left.exists()
    assert cat.exit() == 0


def _path_without_bwrap(tmp_path: Path) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("bash", "sh", "git", "cat", "ls", "touch", "env"):
        found = subprocess.run(["which", name], capture_output=True, text=True).stdout.strip()
        if found:
            (bin_dir / name).symlink_to(found)
    return os.pathsep.join([str(Path(sys.executable).parent), str(bin_dir)])


def test_without_bubblewrap_one_line_at_start_and_bash_asks_as_before(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path, tmp_path: Path, project: Path
) -> None:
    path = _path_without_bwrap(tmp_path)
    written = home_dir / "unfenced.txt"
    fake_server.enqueue(tool_use("bash", {"command": f"touch {written}"}), text("Done."))
    cat = spawn_catcode(env={"PATH": path})
    cat.expect_text("sandbox not available: bubblewrap (bwrap) not found")
    cat.prompt()
    cat.say("touch it")
    cat.expect_text("Allow Bash?")
    cat.say("y")
    cat.expect_text("Done.")
    cat.prompt()
    assert written.exists()
    cat.say("/permissions")
    cat.expect_text("sandbox: not available — bubblewrap (bwrap) not found")
    cat.prompt()
    assert cat.exit() == 0
    assert cat.output.count("sandbox not available") == 1

    env = {**os.environ, "PATH": path, "HOME": str(home_dir), "CATCODE_HOME": str(home_dir / ".cat-code")}
    doctor = run_catcode(["doctor"], env=env, cwd=project)
    assert doctor.returncode == 1
    assert "sandbox: not available — bubblewrap (bwrap) not found" in doctor.stdout


@needs_bwrap
def test_doctor_says_the_fence_is_up(project: Path, home_dir: Path) -> None:
    env = {**os.environ, "HOME": str(home_dir), "CATCODE_HOME": str(home_dir / ".cat-code")}
    doctor = subprocess.run(  # the console script's own run of doctor
        [*catcode_argv(), "doctor"], cwd=project, env=env, capture_output=True, text=True, timeout=bound(60)
    )
    assert doctor.returncode == 0, doctor.stderr
    assert doctor.stdout.startswith(f"sandbox: workspace-write, network off (bubblewrap); writable: {project}")


@needs_bwrap
def test_the_sandbox_flag_picks_the_fence_shown_in_permissions(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path, home_dir: Path
) -> None:
    fake_server.enqueue(tool_use("bash", {"command": "touch made-inside.txt"}), text("Tried."))
    cat = spawn_catcode("--sandbox", "read-only", "--permission-mode", "bypass")
    cat.prompt()
    cat.say("make a file")
    cat.expect_text("Tried.")
    cat.prompt()
    assert not (project / "made-inside.txt").exists()
    cat.say("/permissions")
    cat.expect_text("sandbox: read-only, network off (bubblewrap); no writes")
    cat.prompt()
    assert cat.exit() == 0

    outside = home_dir / "off.txt"
    fake_server.enqueue(tool_use("bash", {"command": f"touch {outside}"}), text("Made."))
    cat = spawn_catcode("--sandbox", "off", "--permission-mode", "bypass")
    cat.prompt()
    cat.say("make it")
    cat.expect_text("Made.")
    cat.prompt()
    assert outside.exists()
    cat.say("/permissions")
    cat.expect_text("sandbox: off (sandbox.mode)")
    cat.prompt()
    assert cat.exit() == 0


def test_a_bad_sandbox_mode_is_one_line_and_exit_2(project: Path, home_dir: Path) -> None:
    env = {**os.environ, "HOME": str(home_dir), "CATCODE_HOME": str(home_dir / ".cat-code")}
    done = run_catcode(["--sandbox", "sometimes", "-p", "hi"], env=env, cwd=project)
    assert done.returncode == 2
    assert "unknown value 'sometimes' (choose: workspace-write, read-only, off)" in done.stderr
    assert "Traceback" not in done.stderr


def test_print_mode_says_once_on_stderr_that_the_fence_is_down(
    fake_server: FakeAnthropicServer, project: Path, home_dir: Path, tmp_path: Path
) -> None:
    fake_server.enqueue(text("Hello."))
    env = {
        **os.environ,
        "PATH": _path_without_bwrap(tmp_path),
        "HOME": str(home_dir),
        "CATCODE_HOME": str(home_dir / ".cat-code"),
        "ANTHROPIC_BASE_URL": fake_server.base_url,
        "ANTHROPIC_API_KEY": "test-key",
        "CATCODE_MEMORY_ENABLED": "false",
    }
    done = run_catcode(["-p", "hi"], env=env, cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello."
    assert done.stderr.count("catcode: sandbox not available: bubblewrap (bwrap) not found") == 1


def test_config_shows_the_sandbox_and_the_layer_that_set_it(project: Path, home_dir: Path) -> None:
    (home_dir / ".cat-code").mkdir()
    (home_dir / ".cat-code" / "settings.yaml").write_text("sandbox:\n  network: on\n")
    env = {**os.environ, "HOME": str(home_dir), "CATCODE_HOME": str(home_dir / ".cat-code")}
    done = run_catcode(["config"], env=env, cwd=project)
    assert done.returncode == 0, done.stderr
    lines = {line.split("=")[0].strip(): line for line in done.stdout.splitlines() if line.startswith("sandbox.")}
    assert '"workspace-write"' in lines["sandbox.mode"] and "(default)" in lines["sandbox.mode"]
    assert '"on"' in lines["sandbox.network"] and "user" in lines["sandbox.network"]
