"""``catcode -p`` against the fake Anthropic server: in the test process through the real entry point
(``tests/in_process.py``), and as a real subprocess of the console script where that is the point (``run_real``:
the script itself, a peak of memory)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.e2e.conftest import catcode_argv
from tests.fakes import FakeAnthropicServer, status, text, tool_use
from tests.in_process import run_catcode
from tests.slowness import bound


def env_for(project: Path, server: FakeAnthropicServer | None, extra_env: dict | None = None) -> dict[str, str]:
    """The environment of a run in ``project``: this one without API or catcode settings, a home beside the project,
    the fake server's address and a key (``server=None``: no API settings), then ``extra_env``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CATCODE_", "CLAUDE_CODE_"))}
    env.update(
        HOME=str(project.parent / "home"),
        CATCODE_HOME=str(project.parent / "home" / ".cat-code"),
        CATCODE_MAX_RETRIES="1",
    )
    if server is not None:
        env.update(ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY="test-key")
    env.update(extra_env or {})
    return env


def run(
    project: Path, server: FakeAnthropicServer | None, *args: str, extra_env: dict | None = None
) -> subprocess.CompletedProcess[str]:
    """``catcode *args`` with no terminal, in the test process (``env_for`` its environment)."""
    return run_catcode(args, env=env_for(project, server, extra_env), cwd=project)


def run_real(
    project: Path,
    server: FakeAnthropicServer | None,
    *args: str,
    prefix: tuple[str, ...] = (),
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """``run``, as a subprocess of the console script; ``prefix`` runs it through another program
    (``run_with_peak``); ``stdin`` is piped in."""
    argv = [*prefix, *catcode_argv(), *args]
    env = env_for(project, server)
    return subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=bound(60), input=stdin)


_PEAK_WRAPPER = (
    "import resource, subprocess, sys\n"
    "code = subprocess.call(sys.argv[1:])\n"
    "sys.stderr.write(f'\\npeak-kib {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}\\n')\n"
    "sys.exit(code)\n"
)


def run_with_peak(
    project: Path, server: FakeAnthropicServer | None, *args: str, stdin: str | None = None
) -> tuple[Any, int]:
    """``run``, and the peak memory in KiB of catcode and everything it started and waited for — measured by a
    process of its own, so that no other test's child counts."""
    proc = run_real(project, server, *args, prefix=(sys.executable, "-c", _PEAK_WRAPPER), stdin=stdin)
    head, _, peak = proc.stderr.rpartition("\npeak-kib ")
    proc.stderr = head
    return proc, int(peak)


def test_prints_the_answer_and_exits_zero(project: Path, fake_server: FakeAnthropicServer) -> None:
    server = fake_server
    server.enqueue(text("Hello from the fake model."))
    proc = run_real(project, server, "-p", "hi")  # the console script itself
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Hello from the fake model."
    body = server.requests()[0].body
    assert body["messages"][0]["content"][0]["text"] == "hi"
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert {t["name"] for t in body["tools"]} >= {"Read", "Write", "Edit", "Bash", "Grep"}


def test_tool_allowed_by_rule_runs(project: Path, fake_server: FakeAnthropicServer) -> None:
    server = fake_server
    # The user's own settings: a project's bash rule would need the person's consent, which print mode never asks.
    (project.parent / "home" / ".cat-code").mkdir(parents=True)
    (project.parent / "home" / ".cat-code" / "settings.yaml").write_text("permissions:\n  allow:\n    - bash(echo *)\n")
    server.enqueue(
        tool_use("bash", {"command": "echo tool-ran"}, text_before="Let me run it."),
        text("The command printed tool-ran."),
    )
    proc = run(project, server, "-p", "run echo")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "The command printed tool-ran.\n"  # the answer (``result``), as Claude Code prints it
    result = server.requests()[1].messages[-1]["content"][0]
    assert result["type"] == "tool_result" and "tool-ran" in result["content"] and not result.get("is_error")


def test_write_denied_when_nobody_can_be_asked(project: Path, fake_server: FakeAnthropicServer) -> None:
    server = fake_server
    server.enqueue(tool_use("write_file", {"path": "out.txt", "content": "x"}), text("I could not write it."))
    proc = run(project, server, "-p", "write a file")
    assert proc.returncode == 0, proc.stderr
    assert not (project / "out.txt").exists()
    result = server.requests()[1].messages[-1]["content"][0]
    assert result["is_error"] and "no terminal" in result["content"]


def test_api_failure_is_one_line_and_exit_one(project: Path, fake_server: FakeAnthropicServer) -> None:
    server = fake_server
    server.enqueue(status(529), status(529))
    proc = run(project, server, "-p", "hi")
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert lines[0] == "catcode: overloaded, retrying in 2 ms (attempt 1/1)"
    assert len(lines) == 2 and "529" in lines[1] and "Traceback" not in proc.stderr


def test_missing_api_key_exit_two(project: Path) -> None:
    proc = run(project, None, "-p", "hi")
    assert proc.returncode == 2
    assert "ANTHROPIC_API_KEY" in proc.stderr and "ANTHROPIC_BASE_URL" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_setting_names_file_and_key(project: Path, fake_server: FakeAnthropicServer) -> None:
    server = fake_server
    (project / ".cat-code").mkdir()
    (project / ".cat-code" / "settings.yaml").write_text("permissions:\n  moed: bypass\n")
    proc = run(project, server, "-p", "hi")
    assert proc.returncode == 2
    assert "settings.yaml" in proc.stderr and "permissions.moed" in proc.stderr and "unknown setting" in proc.stderr


def test_project_may_not_redirect_memory_dir(project: Path, fake_server: FakeAnthropicServer) -> None:
    server = fake_server
    (project / ".cat-code").mkdir()
    (project / ".cat-code" / "settings.local.yaml").write_text("memory:\n  dir: /tmp/elsewhere\n")
    proc = run(project, server, "-p", "hi")
    assert proc.returncode == 2 and "memory.dir" in proc.stderr


def test_version_is_fast_path(project: Path) -> None:
    proc = run_real(project, None, "--version")
    assert proc.returncode == 0 and proc.stdout.startswith("catcode ")
