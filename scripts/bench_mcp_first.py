"""MCP first-message figure (issue 23 §2): the servers start at launch and a message sent before they are ready waits
for them, so the first request carries their tools. Measured in one run, interleaved, against baselines:

- time to the prompt with two MCP servers configured vs none (the servers start once the prompt is drawn: the ratio
  must stay within 1.10);
- time from sending a message the instant the prompt appears to the end of its answer, when the model uses an MCP
  tool (two servers configured), against the same with a built-in tool and no server (what the wait costs);
- the quality the speed could trade: the share of first requests that carried the MCP tool (1.0 wanted) and of
  answers that came back whole.

Two copies of the SDK demo server from the tests are configured in the user's settings (no consent needed)."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pexpect
from bench_startup import PROMPT, _env, _project, _with_mcp_servers, catcode_argv, time_to_prompt

DONE = "Answer complete."


def _answer(body: dict[str, Any]) -> Any:
    """The fake model: use the MCP echo tool when offered, else read_file; answer once the result is in."""
    from tests.fakes import text, tool_use

    last = body["messages"][-1]["content"]
    if isinstance(last, list) and any(block.get("type") == "tool_result" for block in last):
        return text(DONE)
    names = [tool["name"] for tool in body.get("tools", [])]
    if "mcp__first__echo" in names:
        return tool_use("mcp__first__echo", {"text": "hi"})
    return tool_use("read_file", {"path": "notes.txt"})


DEMO = str(Path(__file__).resolve().parent.parent / "tests" / "catcode_mcp" / "servers" / "demo_server.py")


def _settle(timeout: float = 15.0) -> None:
    """Wait until no demo MCP server of an earlier run is still exiting (they would weigh on the next start)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        alive = False
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                alive = alive or DEMO.encode() in cmdline.read_bytes()
            except OSError:
                continue
        if not alive:
            return
        time.sleep(0.1)


def _first_answer(project: Path, env: dict[str, str], timeout: float = 60) -> tuple[float, bool]:
    """(ms from sending a message the instant the prompt appears to the end of its answer, whether it arrived)."""
    argv = catcode_argv()
    child = pexpect.spawn(argv[0], argv[1:], cwd=str(project), env=env, encoding="utf-8", dimensions=(30, 120))
    try:
        child.expect(PROMPT, timeout=timeout)
        sent = time.perf_counter()
        child.send("use the tool\r")
        whole = child.expect([DONE, pexpect.TIMEOUT], timeout=timeout) == 0
        elapsed = (time.perf_counter() - sent) * 1000
        child.expect(PROMPT, timeout=timeout)
        child.sendcontrol("d")
        child.expect(pexpect.EOF, timeout=timeout)
    finally:
        child.close(force=True)
    return elapsed, whole


def bench_mcp_first(runs: int = 5) -> dict[str, float]:
    """Prompt time with two servers vs none; first answer with the MCP tool vs with a built-in tool and no server."""
    from tests.fakes import FakeAnthropicServer

    prompt: dict[str, list[float]] = {"none": [], "two": []}
    answer: dict[str, list[float]] = {"none": [], "two": []}
    carried = whole = 0
    with FakeAnthropicServer() as server, tempfile.TemporaryDirectory() as tmp:
        server.responder = _answer
        base = Path(tmp)
        project = _project(base / "project")
        (project / "notes.txt").write_text("notes\n")
        homes: dict[tuple[int, str], dict[str, str]] = {}
        for run in range(runs + 1):
            for name in ("none", "two"):
                home = base / f"home-{run}-{name}"
                (home / ".cat-code").mkdir(parents=True)
                if name == "two":
                    _with_mcp_servers(home / ".cat-code")
                else:  # a settings file too: both starts validate one, only the servers differ
                    (home / ".cat-code" / "settings.yaml").write_text("mcp_servers: {}\n")
                homes[run, name] = {**_env(home, memory=False), "ANTHROPIC_BASE_URL": server.base_url}
        # Prompts first, then answers (a finished answer's servers still exiting must not weigh on a prompt); the
        # order alternates each round, so that neither side always runs right after the other.
        for run in range(runs + 1):  # the first round writes bytecode caches; not counted
            for name in ("none", "two") if run % 2 else ("two", "none"):
                _settle()
                ms = time_to_prompt(project, homes[run, name])
                if run:
                    prompt[name].append(ms)
        for run in range(runs + 1):
            for name in ("none", "two") if run % 2 else ("two", "none"):
                _settle()
                before = len(server.requests())
                ms, arrived = _first_answer(project, homes[run, name])
                if not run:
                    continue
                answer[name].append(ms)
                whole += arrived
                if name == "two":
                    first = server.requests()[before]
                    carried += "mcp__first__echo" in [tool["name"] for tool in first.body.get("tools", [])]
    median = statistics.median
    return {
        "prompt_ms_without_mcp": round(median(prompt["none"]), 1),
        "prompt_ms_with_2_servers": round(median(prompt["two"]), 1),
        "prompt_ratio_with_vs_without": round(median(prompt["two"]) / median(prompt["none"]), 3),
        "first_answer_ms_builtin_tool_no_mcp": round(median(answer["none"]), 1),
        "first_answer_ms_mcp_tool_sent_at_once": round(median(answer["two"]), 1),
        "first_answer_ratio_mcp_vs_builtin": round(median(answer["two"]) / median(answer["none"]), 3),
        "first_request_carried_mcp_tool_ratio": round(carried / runs, 3),
        "answers_complete_ratio": round(whole / (2 * runs), 3),
    }


if __name__ == "__main__":
    import json

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    json.dump(bench_mcp_first(), sys.stdout, indent=2)
    sys.stdout.write("\n")
