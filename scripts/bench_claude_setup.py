"""Issue 35: what reading a Claude Code setup costs, as ratios against a baseline of the same run.

- Settings: ``load_settings`` in-process for a home and project holding Claude Code's settings files (with hooks,
  rules, env, a status line) against the same without them (catcode's own files only), runs interleaved.
- Print mode: ``catcode -p`` wall time in a project with the whole setup (settings, the CLAUDE.md family, commands,
  agents, skills) against a bare one, and with the four hooks of the hooks reference collection on top (each turn
  runs the prompt injector and the Stop gate: two processes). The quality the speed could trade is measured with it:
  the parts of the setup the request shows it used (instructions, the skill, the agent, the allow rule's command),
  out of those present (must be all)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]
CATCODE = str(Path(sys.executable).parent / "catcode")


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CATCODE_", "CLAUDE_"))}
    env.update(HOME=str(home), CATCODE_HOME=str(home / ".cat-code"), GIT_CONFIG_GLOBAL="/dev/null", **extra)
    env.update(CATCODE_MEMORY_ENABLED="false", CATCODE_USER_ID="bench")
    return env


def _setup(home: Path, project: Path, hooks: bool) -> None:
    from tests.e2e.test_claude_setup_e2e import HOOKS, claude_home, claude_project

    settings: dict[str, object] = {"permissions": {"allow": ["Bash(echo:*)"]}, "env": {"TEAM": "blue"}}
    if hooks:
        settings["hooks"] = HOOKS
    claude_home(home, **settings)
    claude_project(project)
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Read(./.env)"]}}))


def bench_settings(runs: int = 40) -> dict[str, float]:
    """Median ``load_settings`` time with Claude Code's files and without, in milliseconds, and the ratio."""
    from catcode.safety.trusted_settings import load_settings

    times: dict[str, list[float]] = {"catcode only": [], "with Claude Code's": []}
    with tempfile.TemporaryDirectory() as tmp:
        for name in times:
            home, project = Path(tmp) / name / "home", Path(tmp) / name / "project"
            project.mkdir(parents=True)
            (home / ".cat-code").mkdir(parents=True)
            (home / ".cat-code" / "settings.yaml").write_text("permissions:\n  allow: [bash(ls*)]\n")
            if name != "catcode only":
                _setup(home, project, hooks=True)
        saved = os.environ.get("HOME")
        try:
            for _ in range(runs):
                for name in times:
                    home, project = Path(tmp) / name / "home", Path(tmp) / name / "project"
                    os.environ["HOME"] = str(home)
                    start = time.perf_counter()
                    load_settings(home / ".cat-code", project, {}, {})
                    times[name].append(time.perf_counter() - start)
        finally:
            if saved is not None:
                os.environ["HOME"] = saved
    base = statistics.median(times["catcode only"])
    with_claude = statistics.median(times["with Claude Code's"])
    return {
        "settings_catcode_only_ms": base * 1000,
        "settings_with_claude_ms": with_claude * 1000,
        "settings_ratio": with_claude / base,
    }


def bench_print(runs: int = 5) -> dict[str, float]:
    """Median ``catcode -p`` wall time: bare project, the Claude Code setup, the setup with hooks; what was used."""
    from tests.fakes import FakeAnthropicServer, text, tool_use

    kinds = ("bare", "setup", "setup with hooks")
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    used = present = 0
    with tempfile.TemporaryDirectory() as tmp, FakeAnthropicServer() as server:
        places = {}
        for kind in kinds:
            home, project = Path(tmp) / kind / "home", Path(tmp) / kind / "project"
            project.mkdir(parents=True)
            subprocess.run(["git", "init", "-q", str(project)], check=True)
            if kind != "bare":
                _setup(home, project, hooks=kind == "setup with hooks")
            places[kind] = (home, project)
        for _ in range(runs):
            for kind in kinds:
                home, project = places[kind]
                env = _env(home, ANTHROPIC_BASE_URL=server.base_url, ANTHROPIC_API_KEY="bench")
                server.enqueue(tool_use("bash", {"command": "echo ok"}), text("Done: the tests pass."))
                before = len(server.requests())
                start = time.perf_counter()
                subprocess.run([CATCODE, "-p", "go"], cwd=project, env=env, capture_output=True, text=True,
                               check=True)  # fmt: skip
                times[kind].append(time.perf_counter() - start)
                if kind == "setup":
                    first, second = server.requests()[before : before + 2]
                    checks = [
                        "Never force-push to main." in first.system_text,
                        "My staging host is stage-3." in first.system_text,
                        "Use four spaces." in first.system_text,
                        "release-notes:" in first.system_text,
                        "reviewer" in json.dumps(first.body["tools"]),
                        "ok" in json.dumps(second.body["messages"][-1]),  # the allow rule let echo run unasked
                    ]
                    used, present = used + sum(checks), present + len(checks)
    base = statistics.median(times["bare"])
    return {
        "print_bare_ms": base * 1000,
        "print_setup_ratio": statistics.median(times["setup"]) / base,
        "print_setup_with_hooks_ratio": statistics.median(times["setup with hooks"]) / base,
        "setup_parts_used": used,
        "setup_parts_present": present,
    }


def bench_claude_setup() -> dict[str, float]:
    """Both figures, one run."""
    return {**bench_settings(), **bench_print()}


if __name__ == "__main__":
    for key, value in bench_claude_setup().items():
        print(f"{key}: {value:.3f}" if isinstance(value, float) else f"{key}: {value}")
