"""Startup figures: time from process start to the interactive prompt, and time to the first streamed token of a
message sent the instant the prompt appears.

The real ``catcode`` (the console script next to this interpreter, else ``python -m catcode``) runs in a
pseudo-terminal, in a temporary git project with HOME and CATCODE_HOME in a fresh temp dir for every run; "ready"
is the moment the prompt marker appears. Every subject runs in turn within each round (interleaved: the machine's
drift hits them alike) and the figures are medians.

Baselines measured in the same run:
- ``python -c 'input()'`` (writing the prompt marker first, so that it can be seen): the floor of any prompt;
- the previous approach — the session built before the prompt is drawn — which catcode still takes when the project
  may ask for consent (``project_trust.may_ask``): here, a project with an empty ``.cat-code/skills/`` folder
  (nothing is asked: there are no skills).

The quality the speed trades is measured in the same sections: a settings error must still end catcode with exit 2
and one line before any prompt (also right after a start that drew the prompt from a record of earlier
settings), every message sent at once must be answered, whole and exactly once, and memory's start-up work — left
for the first quiet moment (``Session.start_idle``) — must still be done (the recall index it syncs exists).

Measured on the shared 2-core development machine (medians of interleaved runs, three runs): the prompt in 0.11–0.17 s,
0.25–0.33 of the previous approach (0.35–0.54 s) and 4–5.7 times ``python -c 'input()'`` (0.02–0.04 s); with a
settings file changed since the last start 0.21–0.30 s (pydantic and the settings models are imported first);
since the settings models stopped reading their source, 0.18 s, and the previous approach 0.26 s (the prompt itself
unchanged, 0.095 s). A message sent at once gets its first token 0.75–0.81 s after it is sent, 0.65–0.71 s more
than one sent after 3 s — 0.87 (median of four back-to-back pairs, 0.83–0.96) of that difference before the first
request's path was cleared (settings models no longer read their source for ``use_attribute_docstrings``;
structlog's import, memory's start-up work and the MCP servers' start wait for the first answer or an idle prompt)
— and 0.83–0.90 s after launch (0.90 of before), the same as the previous approach, which builds the session before
drawing the prompt (its difference 0.51–0.52 s). With two MCP servers configured, the message sent at once gets
its first token in 0.69–0.72 s: 0.53 of before, when their start shared the processor with it (1.30–1.39 s). What
the message still waits for behind the prompt is the SDK import (~0.55 s of processor time that nothing can share:
the imports hold the interpreter lock) and the ~0.15 s the session's own modules take to import."""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pexpect

PROMPT = "❯"
TARGET_MS = 200.0
ANSWER = "Hello from the model, streamed."
BARE_PROMPT = "import sys; sys.stdout.write('❯ '); sys.stdout.flush(); input()"


def catcode_argv() -> list[str]:
    """The installed console script when there is one, else the module."""
    script = Path(sys.executable).parent / "catcode"
    return [str(script)] if script.exists() else [sys.executable, "-m", "catcode"]


def _env(home: Path, memory: bool) -> dict[str, str]:
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),
        "CATCODE_HOME": str(home / ".cat-code"),
        "ANTHROPIC_API_KEY": "test-key",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",  # never contacted: no message is sent
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "PROMPT_TOOLKIT_NO_CPR": "1",  # nobody answers cursor-position requests in a bare pty
    }
    if not memory:
        env["CATCODE_MEMORY_ENABLED"] = "false"
    return env


def _project(folder: Path, *, may_ask: bool = False) -> Path:
    """An empty git project; ``may_ask`` adds an empty ``.cat-code/skills/`` (the session is built before the
    prompt, the previous approach)."""
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True, env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null"})
    if may_ask:
        (folder / ".cat-code" / "skills").mkdir(parents=True)
    return folder


def time_to_prompt(project: Path, env: dict[str, str], timeout: float = 60, argv: list[str] | None = None) -> float:
    """Milliseconds from spawning catcode (or ``argv``) until its prompt is drawn; it is then ended with Ctrl+D."""
    argv = argv or catcode_argv()
    started = time.perf_counter()
    child = pexpect.spawn(argv[0], argv[1:], cwd=str(project), env=env, encoding="utf-8", dimensions=(30, 120))
    try:
        child.expect(PROMPT, timeout=timeout)
        elapsed = (time.perf_counter() - started) * 1000
        child.sendcontrol("d")
        child.expect(pexpect.EOF, timeout=timeout)
    finally:
        child.close(force=True)
    return elapsed


def refused_before_prompt(project: Path, env: dict[str, str], settings: Path, timeout: float = 60) -> bool:
    """Whether catcode, with a broken ``settings`` file, exits 2 with one line naming it and never draws a prompt."""
    settings.write_text("max_tokens: 0\n")
    argv = catcode_argv()
    child = pexpect.spawn(argv[0], argv[1:], cwd=str(project), env=env, encoding="utf-8", dimensions=(30, 120))
    try:
        child.expect(pexpect.EOF, timeout=timeout)
        output = child.before or ""
    finally:
        child.close(force=True)
    lines = [line for line in output.replace("\r", "").splitlines() if line.strip()]
    one_line = len(lines) == 1 and lines[0].startswith(f"catcode: {settings}: max_tokens")
    return child.exitstatus == 2 and one_line and PROMPT not in output


def bench_startup(runs: int = 7) -> dict[str, float]:
    """Median time to the prompt: fresh start (nothing to validate), with a settings file (validated first; then
    drawn from the record of that validation), the previous approach and ``python -c 'input()'``, interleaved, with
    ratios; and the share of broken settings refused before any prompt."""
    subjects = ("catcode", "previous", "settings_first", "settings_later", "python_input")
    times: dict[str, list[float]] = {name: [] for name in subjects}
    refused = 0
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        plain, asking = _project(base / "plain"), _project(base / "asking", may_ask=True)
        for run in range(runs + 1):  # the first round writes bytecode caches; not counted
            for name in subjects:
                home = base / f"home-{run}-{name}"
                (home / ".cat-code").mkdir(parents=True)
                env = _env(home, memory=True)
                if name.startswith("settings"):
                    (home / ".cat-code" / "settings.yaml").write_text("model: claude-opus-5-5\n")
                if name == "settings_later":
                    time_to_prompt(plain, env)  # validated and recorded
                project = asking if name == "previous" else plain
                argv = [sys.executable, "-c", BARE_PROMPT] if name == "python_input" else None
                elapsed = time_to_prompt(project, env, argv=argv)
                if run:
                    times[name].append(elapsed)
                if name == "settings_later" and run:
                    refused += refused_before_prompt(plain, env, home / ".cat-code" / "settings.yaml")
        for run in range(runs):
            home = base / f"broken-{run}"
            (home / ".cat-code").mkdir(parents=True)
            refused += refused_before_prompt(plain, _env(home, memory=True), home / ".cat-code" / "settings.yaml")
    median = {name: statistics.median(values) for name, values in times.items()}
    return {
        "prompt_ms": round(median["catcode"], 1),
        "prompt_previous_approach_ms": round(median["previous"], 1),
        "prompt_with_settings_first_start_ms": round(median["settings_first"], 1),
        "prompt_with_settings_later_starts_ms": round(median["settings_later"], 1),
        "python_input_ms": round(median["python_input"], 1),
        "ratio_vs_previous_approach": round(median["catcode"] / median["previous"], 3),
        "ratio_vs_python_input": round(median["catcode"] / median["python_input"], 3),
        "ratio_settings_later_vs_previous": round(median["settings_later"] / median["previous"], 3),
        "target_ms": TARGET_MS,
        "settings_errors_refused_before_prompt_ratio": round(refused / (runs * 2), 3),
    }


def _first_token(project: Path, env: dict[str, str], wait_s: float, timeout: float = 60) -> tuple[float, float, bool]:
    """(ms from spawning catcode to the first streamed words of the answer, ms from typing the message — ``wait_s``
    after the prompt appeared — to those words, whether the whole answer arrived)."""
    argv = catcode_argv()
    spawned = time.perf_counter()
    child = pexpect.spawn(argv[0], argv[1:], cwd=str(project), env=env, encoding="utf-8", dimensions=(30, 120))
    try:
        child.expect(PROMPT, timeout=timeout)
        if wait_s:
            time.sleep(wait_s)  # the person reads the prompt; the session and the SDK get ready meanwhile
        sent = time.perf_counter()
        child.send("hi\r")
        child.expect("Hello", timeout=timeout)
        seen = time.perf_counter()
        complete = child.expect([re.escape("streamed."), pexpect.TIMEOUT], timeout=timeout) == 0
        child.expect(PROMPT, timeout=timeout)
        child.sendcontrol("d")
        child.expect(pexpect.EOF, timeout=timeout)
    finally:
        child.close(force=True)
    return (seen - spawned) * 1000, (seen - sent) * 1000, complete


def bench_first_token(runs: int = 5) -> dict[str, float]:
    """Time to the first streamed token for a message sent the instant the prompt appears, against one sent 3 s later
    (everything ready), the previous approach's message sent at once, and one sent at once with two MCP servers
    configured (the message waits for them to be ready: their tools go with it) — interleaved, a fresh HOME each run,
    memory on (its start-up work included) — plus the time from launch to that token. The quality traded: every
    answer arrives whole, each message is sent exactly once, and memory's start-up work is still done."""
    from catcode.settings.paths import make_paths
    from tests.e2e.test_memory_e2e import kind_of
    from tests.fakes import FakeAnthropicServer, text

    subjects: dict[str, tuple[bool, float]] = {"at_once": (False, 0.0), "after_3s": (False, 3.0)}
    subjects["previous_at_once"] = (True, 0.0)
    subjects["at_once_with_mcp"] = (False, 0.0)  # two MCP servers in the user's settings
    sent: dict[str, list[float]] = {name: [] for name in subjects}
    launched: dict[str, list[float]] = {name: [] for name in subjects}
    complete = once = started = 0
    with FakeAnthropicServer() as server, tempfile.TemporaryDirectory() as tmp:
        server.responder = lambda body: text(ANSWER)  # the chat turn and any memory call get an answer
        base = Path(tmp)
        projects = {False: _project(base / "plain"), True: _project(base / "asking", may_ask=True)}
        for run in range(runs + 1):  # the first round writes bytecode caches; not counted
            for name, (may_ask, wait) in subjects.items():
                home = base / f"home-{run}-{name}"
                home.mkdir()
                env = {**_env(home, memory=True), "ANTHROPIC_BASE_URL": server.base_url}
                if name == "at_once_with_mcp":
                    _with_mcp_servers(home / ".cat-code")
                chats = _count(server, kind_of)
                from_launch, from_send, whole = _first_token(projects[may_ask], env, wait)
                if not run:
                    continue
                sent[name].append(from_send)
                launched[name].append(from_launch)
                complete += whole
                once += _count(server, kind_of) - chats == 1
                started += make_paths(home / ".cat-code", projects[may_ask]).facts_db.exists()
    median: Callable[[list[float]], float] = statistics.median
    at_once, warm, previous = median(sent["at_once"]), median(sent["after_3s"]), median(sent["previous_at_once"])
    launch, launch_before = median(launched["at_once"]), median(launched["previous_at_once"])
    return {
        "first_token_at_once_ms": round(at_once, 1),
        "first_token_after_3s_ms": round(warm, 1),
        "difference_ms": round(at_once - warm, 1),
        "ratio_at_once_vs_after_3s": round(at_once / warm, 3),
        "previous_approach_at_once_ms": round(previous, 1),
        "previous_approach_difference_ms": round(previous - warm, 1),
        "launch_to_first_token_at_once_ms": round(launch, 1),
        "previous_approach_launch_to_first_token_ms": round(launch_before, 1),
        "ratio_launch_to_token_vs_previous": round(launch / launch_before, 3),
        "first_token_at_once_with_2_mcp_servers_ms": round(median(sent["at_once_with_mcp"]), 1),
        "ratio_with_mcp_vs_without": round(median(sent["at_once_with_mcp"]) / at_once, 3),
        "answers_complete_ratio": round(complete / (runs * len(subjects)), 3),
        "answered_exactly_once_ratio": round(once / (runs * len(subjects)), 3),
        "start_up_work_done_ratio": round(started / (runs * len(subjects)), 3),
    }


def _with_mcp_servers(home: Path) -> None:
    """Two copies of the tests' demo MCP server in the user's settings (no consent needed)."""
    import yaml

    demo = Path(__file__).resolve().parent.parent / "tests" / "catcode_mcp" / "servers" / "demo_server.py"
    home.mkdir(parents=True, exist_ok=True)
    servers = {name: {"command": sys.executable, "args": [str(demo)]} for name in ("first", "second")}
    (home / "settings.yaml").write_text(yaml.safe_dump({"mcp_servers": servers}))


def _count(server: object, kind_of: Callable[[dict], str]) -> int:
    """Chat turns the fake server has answered so far (memory's own requests left out)."""
    return sum(kind_of(request.body) == "chat" for request in server.requests())  # type: ignore[attr-defined]


if __name__ == "__main__":
    import json

    json.dump(bench_startup(), sys.stdout, indent=2)
    sys.stdout.write("\n")
