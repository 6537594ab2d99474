"""Issue 22 §5: a hook cannot hold catcode. A child that escapes the hook's process group (``setsid``) and keeps
its pipes open is killed with the rest of the tree at the hook's timeout, and ``cat /dev/zero`` is read only to
the output cap. The real ``catcode -p`` with the user's own hooks; every wait has a bound."""

from __future__ import annotations

import os
import secrets
import signal
import time
from pathlib import Path

import yaml

from tests.e2e.test_print_mode import run, run_with_peak
from tests.fakes import FakeAnthropicServer, text


def hooks(project: Path, *entries: dict[str, object]) -> None:
    home = project.parent / "home" / ".cat-code"
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.yaml").write_text(yaml.safe_dump({"hooks": {"UserPromptSubmit": list(entries)}}))


def alive(marker: str) -> list[int]:
    """Processes whose command line holds ``marker`` (a zombie has none)."""
    found = []
    for pid in filter(str.isdigit, (p.name for p in Path("/proc").iterdir())):
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            continue
    return found


def marker() -> str:
    """A sleep length no other run of these tests uses (another checkout may run them at the same time)."""
    return f"4243.{secrets.randbelow(10**9):09d}"


def test_an_escaped_child_is_killed_at_the_timeout(project: Path, fake_server: FakeAnthropicServer) -> None:
    escaped, held = marker(), marker()
    hooks(project, {"command": f"setsid sleep {escaped} & sleep {held}", "timeout": 2})
    fake_server.enqueue(text("answered"))
    started = time.monotonic()
    proc = run(project, fake_server, "-p", "hi")
    elapsed = time.monotonic() - started
    assert proc.returncode == 0 and proc.stdout.strip() == "answered", proc.stderr
    assert "timed out after 2s (killed)" in proc.stderr
    assert elapsed < 20  # the escaped child would hold it for 40 s
    assert alive(escaped) == [] and alive(held) == []


def test_a_child_left_running_after_the_hook_exits_does_not_hold_catcode(
    project: Path, fake_server: FakeAnthropicServer
) -> None:
    left = marker()
    hooks(project, {"command": f"setsid sleep {left} & echo context", "timeout": 30})
    fake_server.enqueue(text("answered"))
    started = time.monotonic()
    proc = run(project, fake_server, "-p", "hi")
    assert proc.returncode == 0 and proc.stdout.strip() == "answered", proc.stderr
    assert time.monotonic() - started < 20
    assert "context" in fake_server.requests()[0].all_text
    for pid in alive(left):  # the person's own background process: left running, but it holds nothing of ours
        os.kill(pid, signal.SIGKILL)


def test_endless_output_is_read_only_to_the_cap(project: Path, fake_server: FakeAnthropicServer) -> None:
    hooks(project, {"command": "cat /dev/zero", "timeout": 30})
    fake_server.enqueue(text("answered"))
    proc, peak_kib = run_with_peak(project, fake_server, "-p", "hi")
    assert proc.returncode == 0 and proc.stdout.strip() == "answered", proc.stderr
    assert peak_kib < 400 * 1024  # nowhere near 1.6 GB


def test_the_runner_reads_to_the_cap_and_no_further(tmp_path: Path) -> None:
    from catcode.extensions.user_hooks.process import OUTPUT_CAP, run_bounded

    done = run_bounded(["/bin/sh", "-c", "cat /dev/zero"], b"{}", 30, cwd=tmp_path, env=dict(os.environ))
    assert done.capped and len(done.stdout) == OUTPUT_CAP
    big = b"x" * (4 * OUTPUT_CAP)  # a payload larger than a pipe holds, to a command that never reads it
    done = run_bounded(["/bin/sh", "-c", "exit 3"], big, 30, cwd=tmp_path, env=dict(os.environ))
    assert done.code == 3
