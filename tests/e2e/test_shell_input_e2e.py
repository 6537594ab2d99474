"""Issue 15 §3: ``catcode "prompt"``, piped stdin (one message, bounded), ``-p`` with stdin, ``-h``, flags shown as
flags, ``--output-format text|json|stream-json``, progress and refusals on stderr."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from tests.e2e.conftest import Catcode
from tests.e2e.test_repl import user_texts
from tests.fakes import FakeAnthropicServer, text, tool_use
from tests.in_process import run_catcode

Spawn = Callable[..., Catcode]


def run(project: Path, env: dict[str, str], *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    full_env = {**env, "PATH": env["PATH"] + os.pathsep + os.environ.get("PATH", "")}
    return run_catcode(args, env=full_env, cwd=project, input=stdin)


def test_prompt_argument_starts_the_repl_with_that_message(spawn_catcode: Spawn, fake_server: FakeAnthropicServer):
    fake_server.enqueue(text("Four."))
    cat = spawn_catcode("what is 2+2")
    cat.expect_text("Four.")
    cat.prompt()  # ...and the session goes on
    assert user_texts(fake_server.requests()[0].messages) == ["what is 2+2"]
    assert cat.exit() == 0


def test_piped_lines_make_exactly_one_request(project: Path, catcode_env: dict, fake_server: FakeAnthropicServer):
    fake_server.enqueue(text("One answer."))
    proc = run(project, catcode_env, stdin="a\nb\nc\nd\ne\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "One answer.\n"
    assert len(fake_server.requests()) == 1
    assert user_texts(fake_server.requests()[0].messages) == ["a\nb\nc\nd\ne"]


def test_print_mode_reads_stdin_with_and_without_a_prompt(
    project: Path, catcode_env: dict, fake_server: FakeAnthropicServer
) -> None:
    fake_server.enqueue(text("It prints one."), text("Paris."))
    proc = run(project, catcode_env, "-p", "explain this", stdin="print(1)\n")
    assert proc.returncode == 0, proc.stderr
    assert user_texts(fake_server.requests()[0].messages) == ["explain this\n\n<stdin>\nprint(1)\n</stdin>"]
    proc = run(project, catcode_env, "-p", stdin="capital of France?\n")
    assert proc.returncode == 0 and proc.stdout == "Paris.\n"
    assert user_texts(fake_server.requests()[1].messages) == ["capital of France?"]
    proc = run(project, catcode_env, "-p")
    assert proc.returncode == 2 and "nothing to send" in proc.stderr


def test_long_stdin_is_cut_with_a_note(project: Path, catcode_env: dict, fake_server: FakeAnthropicServer) -> None:
    fake_server.enqueue(text("Long."))
    proc = run(project, catcode_env, "-p", "summarise", stdin="x" * 250_000)
    assert proc.returncode == 0, proc.stderr
    assert "piped input cut at 200,000 characters" in proc.stderr
    [message] = user_texts(fake_server.requests()[0].messages)
    assert message.count("x") == 200_000 and message.endswith("the rest was not sent]")


def test_output_formats(project: Path, catcode_env: dict, fake_server: FakeAnthropicServer) -> None:
    usage = {"input_tokens": 1000, "output_tokens": 100, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    fake_server.enqueue(text("JSON answer.", usage=usage))
    proc = run(project, catcode_env, "-p", "hi", "--output-format", "json", "--model", "claude-sonnet-5-5")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["type"] == "result" and result["result"] == "JSON answer." and not result["is_error"]
    assert result["usage"]["input_tokens"] == 1000 and result["usage"]["output_tokens"] == 100
    assert result["cost_usd"] == 0.003  # 1000 × $2/M + 100 × $10/M
    assert len(result["session_id"]) == 36  # a UUID, as Claude Code's

    fake_server.enqueue(tool_use("bash", {"command": "touch made.txt"}), text("Streamed."))
    proc = run(project, catcode_env, "-p", "list", "--output-format", "stream-json")
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "system" and events[0]["subtype"] == "init" and kinds[-1] == "result"
    blocks = [b["type"] for e in events if e["type"] in ("assistant", "user") for b in e["message"]["content"]]
    assert {"tool_use", "tool_result", "text"} <= set(blocks)  # Claude Code's shapes (issue 24)
    assert "refused Bash(touch made.txt): no terminal to ask for permission" in proc.stderr  # told too


def test_help_short_flag_and_flags_shown_as_flags(project: Path, catcode_env: dict) -> None:
    proc = run(project, catcode_env, "-h")
    assert proc.returncode == 0 and "Usage: catcode [OPTIONS] [PROMPT]" in proc.stdout
    debug = next(line for line in proc.stdout.splitlines() if "--debug" in line)
    version = next(line for line in proc.stdout.splitlines() if "--version" in line)
    assert "<bool>" not in debug + version and "BOOL" not in debug + version
    assert "--output-format" in proc.stdout and "--continue" in proc.stdout and "--resume" in proc.stdout
    proc = run(project, catcode_env, "--debug", "--version")
    assert proc.returncode == 0 and proc.stdout.startswith("catcode ")


def test_subcommands_alone_are_never_a_first_message(
    project: Path, catcode_env: dict, fake_server: FakeAnthropicServer
) -> None:
    for name in ("memory", "config", "mcp"):
        proc = run(project, catcode_env, name)
        assert "nothing to send" not in proc.stderr, name
    proc = run(project, catcode_env, "mcp")
    assert "Usage: catcode mcp [OPTIONS] COMMAND" in proc.stdout + proc.stderr
    assert fake_server.requests() == []
