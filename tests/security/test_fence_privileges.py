"""Issue 32 §1, §3 and §4, as root and as an unprivileged user: every shape aimed at the fence stays inside; a
fenced command holds no capability and cannot remount its way out; the start-up check and ``catcode doctor`` prove
the fence by a trial from inside; the programs catcode runs for itself are never taken from the project's ``PATH``
entries (a planted ``git``, ``bwrap`` or ``bash`` never runs); io_uring, which opens and connects sockets without
the system calls the filter sees, is refused."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from catcode.sandbox.probe import _probe, availability, command_prefix
from catcode.sandbox.proof import outside_folder, remove, run_trial, trial_argv
from tests.fakes import FakeAnthropicServer
from tests.fakes.anthropic_server import text, tool_use
from tests.security.fence_world import World
from tests.security.test_sandbox_corpus import FENCE_SHAPES, Listeners, protected, snapshot

needs_bwrap = pytest.mark.skipif(not availability().ok, reason=f"needs bubblewrap: {availability().problem}")


def test_the_command_holds_no_capability_and_cannot_remount_its_way_out(world: World) -> None:
    result = world.fenced(
        "grep CapEff /proc/self/status; mount -o remount,rw,bind / ; mount -o remount,rw,bind $OUTSIDE;"
        " echo pwned > $OUTSIDE/escaped; unshare -r sh -c 'echo pwned > $OUTSIDE/escaped'; echo done"
    )
    assert "CapEff:\t0000000000000000" in result and "done" in result, result
    assert list(world.outside_dir.iterdir()) == []


def test_doctor_proves_the_fence_from_inside(world: World) -> None:
    code, said = world.catcode("doctor")
    assert code == 0, said
    assert "proved from inside: no capabilities, remount refused, a write outside refused" in said
    assert list(world.outside_dir.iterdir()) == []


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="bubblewrap keeps capabilities only for root")
def test_a_fence_that_lets_root_keep_its_capabilities_is_not_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    # The command line of before (no user namespace, no --cap-drop): bubblewrap starts, the trial gets out.
    bwrap = availability().bwrap or "bwrap"
    outside = outside_folder([])
    try:
        proof = run_trial([*command_prefix(bwrap, (), network=False), "--", *trial_argv(outside)], outside)
    finally:
        remove(outside)
    assert not proof.held and "kept capabilities" in (proof.failure or "")
    monkeypatch.setattr("catcode.sandbox.probe.PRIVILEGE_FLAGS", ((),))
    probed = _probe(os.environ["PATH"] + ":" + "privileged")  # a key of its own: not the cached answer
    assert not probed.ok and "the fence does not hold here: the command kept capabilities" in (probed.problem or "")


def _planted(world: World) -> dict[str, str]:
    """Programs planted in the project's ``.venv/bin``, each leaving a mark when run; the PATH that finds them
    first."""
    folder = world.project / ".venv" / "bin"
    for name in ("git", "bwrap", "bash"):
        world.write(folder / name, f"#!/bin/sh\necho {name} >> {world.outside_dir}/ran\nexit 1\n", 0o755)
    return {"PATH": f"{folder}:{world.env['PATH']}"}


def test_doctor_names_the_programs_and_passes_over_the_planted_ones(world: World) -> None:
    path = _planted(world)
    code, said = world.catcode("doctor", **path)
    assert code == 0, said
    planted = world.project / ".venv" / "bin"
    for name in ("bwrap", "git", "bash"):
        assert f"  {name} /" in said and f"(not {planted / name}: inside {world.project}" in said
    assert "proved from inside" in said
    assert not (world.outside_dir / "ran").exists()


def test_checkpoints_never_run_a_git_planted_on_path(world: World, fake_server: FakeAnthropicServer) -> None:
    path = _planted(world)
    fake_server.enqueue(tool_use("bash", {"command": "echo made > made.txt"}), text("Made."))
    env = {**path, "ANTHROPIC_BASE_URL": fake_server.base_url, "ANTHROPIC_API_KEY": "test-key"}
    code, said = world.catcode(
        "-p", "make a file", "--permission-mode", "bypass", CATCODE_MEMORY_ENABLED="false", **env
    )
    assert code == 0 and "Made." in said, said
    assert (world.project / "made.txt").read_text() == "made\n"  # fenced, by the real bwrap and bash
    assert not (world.outside_dir / "ran").exists()
    checkpoints = world.home / ".cat-code" / "checkpoints"
    assert any(checkpoints.rglob("HEAD")), "the turn's checkpoint was taken, with the real git"


URING_PROGRAM = Path(__file__).with_name("uring_socket.c")


@pytest.fixture(scope="module")
def uring_program() -> Iterator[Path]:
    """The io_uring client, built here where every user may run it."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler (cc or gcc) to build the io_uring client")
    folder = Path(tempfile.mkdtemp(prefix="catcode-uring-")).resolve()
    folder.chmod(0o755)
    binary = folder / "uring_socket"
    subprocess.run([compiler, "-O", "-o", str(binary), str(URING_PROGRAM)], check=True, capture_output=True)
    yield binary
    shutil.rmtree(folder, ignore_errors=True)


def test_io_uring_cannot_reach_a_unix_socket_outside(world: World, uring_program: Path) -> None:
    path = world.outside_dir / "daemon.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    listener.listen()
    listener.settimeout(10)
    os.chmod(path, 0o777)
    try:
        fenced = world.fenced(f"{uring_program} {path}; echo exit $?")
        assert "io_uring refused" in fenced and "exit 3" in fenced, fenced
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing got through
        listener.settimeout(10)
        # Teeth: the same program, unfenced, gets through (and says when this kernel has no IORING_OP_SOCKET).
        code, said = world.outside(f"{uring_program} {path}")
        if code == 4:
            pytest.skip(f"this kernel has no IORING_OP_SOCKET: {said.strip()}")
        assert code == 0, said
        connection, _ = listener.accept()
        assert connection.recv(5) == b"hello"
        connection.close()
    finally:
        listener.close()


def test_the_shapes_aimed_at_the_fence_stay_inside_as_root_and_as_an_unprivileged_user(world: World) -> None:
    world.write(world.home / ".bashrc", "# the person's\n")
    world.write(world.outside_dir / "notes.txt", "outside the project\n")
    listeners = Listeners(world.outside_dir / "host.sock")
    os.chmod(world.outside_dir / "host.sock", 0o777)
    variables = {"PORT": str(listeners.port), "SOCK": str(world.outside_dir / "host.sock")}
    before, held = snapshot(world.root, skip=world.project), protected(world.project)
    try:
        for name, command in FENCE_SHAPES:
            result = world.fenced(command, variables=variables)
            assert snapshot(world.root, skip=world.project) == before, f"{name}: {result}"
            assert protected(world.project) == held, f"{name}: {result}"
            assert (world.project / ".git").is_dir(), name
        assert listeners.hits == 0
    finally:
        listeners.close()
