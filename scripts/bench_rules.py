"""Figures for permission rules read one way in either spelling (issue 33 §1): what a permission check costs per
call with file rules matched as gitignore on the real path, against the reading it replaced (``fnmatch`` over the
project-relative path as given), in the same run (interleaved, medians) — and what that buys: how many of the
attack list's shapes each reading refuses, checked in the same run. ``import pathspec`` (paid once, at the first
file rule matched — never before the first request: a pattern is checked at start-up without it) is timed inside a
fresh interpreter.

``bench_rules()`` prints nothing and returns the figures; ``scripts/bench.py`` calls it."""

from __future__ import annotations

import fnmatch
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from catcode.safety.permissions import PermissionPolicy, Verdict
from catcode.tools.builtin import builtin_tools

TOOLS = {tool.name: tool for tool in builtin_tools()}
DENY = ["Read(**/.env)", "Read(.env.local)", "Read(**/*.pem)", "Edit(**/.envrc)", "Read(//etc/shadow)"]
SHAPES = [  # (tool, path) the attack list read or rewrote past a deny rule
    ("read_file", ".env"),
    ("read_file", "config/.env.local"),
    ("read_file", "k.pem"),
    ("read_file", "deploy/keys/k.pem"),
    ("write_file", ".envrc"),
    ("read_file", "harmless.txt"),  # a link to .env
]
CALLS = [("read_file", "src/app.py"), ("read_file", "docs/guide/intro.md"), ("write_file", "src/new.py"), *SHAPES]


def _before(root: Path, tool: str, path: str) -> bool:
    """The reading this replaced: Claude Code's ``/``, ``./`` and ``//`` stripped to a relative or absolute glob,
    ``fnmatch`` over the path as given, made relative to the project."""
    covers = {"read_file": ("Read",), "write_file": ("Edit", "Write"), "edit_file": ("Edit",)}[tool]
    relative = os.path.relpath(os.path.normpath(root / path), root)
    for rule in DENY:
        name, pattern = rule[:-1].split("(", 1)
        if name not in covers:
            continue
        pattern = pattern[1:] if pattern.startswith("//") else pattern.removeprefix("./").removeprefix("/")
        if fnmatch.fnmatchcase(relative, pattern):
            return True
    return False


def _project() -> Path:
    root = Path(tempfile.mkdtemp(prefix="bench-rules-"))
    for folder in ("src", "docs/guide", "config", "deploy/keys"):
        (root / folder).mkdir(parents=True)
    (root / ".env").write_text("KEY=1\n")
    os.symlink(".env", root / "harmless.txt")
    return root


def _time(function, runs: int) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        samples.append((time.perf_counter() - start) * 1e6)
    return statistics.median(samples)


def _import_ms(runs: int = 7) -> float:
    """Median ms a fresh interpreter spends in ``import pathspec`` (timed inside it: start-up noise left out)."""
    code = "import time; t = time.perf_counter(); import pathspec; print(time.perf_counter() - t)"
    argv = [sys.executable, "-c", code]
    done = [subprocess.run(argv, check=True, capture_output=True, text=True) for _ in range(runs)]
    return statistics.median(float(d.stdout) for d in done) * 1000


def bench_rules() -> dict[str, float]:
    """The figures (see the module docstring)."""
    root = _project()
    try:
        return _figures(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _figures(root: Path) -> dict[str, float]:
    policy = PermissionPolicy.from_strings("bypass", [], DENY, root)

    def now() -> None:
        for tool, path in CALLS:
            policy.check(TOOLS[tool], {"path": path, "content": "", "old_string": "a", "new_string": "b"})

    def before() -> None:
        for tool, path in CALLS:
            _before(root, tool, path)

    now(), before()  # warm: the patterns compiled once
    new_us, old_us = [], []
    for _ in range(15):  # interleaved, so that both readings see the same machine
        new_us.append(_time(now, 20))
        old_us.append(_time(before, 20))
    caught_now = sum(
        policy.check(TOOLS[tool], {"path": path, "content": ""})[0] is Verdict.DENY for tool, path in SHAPES
    )
    caught_before = sum(_before(root, tool, path) for tool, path in SHAPES)
    per_call_new = statistics.median(new_us) / len(CALLS)
    per_call_old = statistics.median(old_us) / len(CALLS)
    return {
        "check per file call, gitignore + real path (us)": per_call_new,
        "the fnmatch reading it replaced (us)": per_call_old,
        "ratio new / old": per_call_new / per_call_old,
        "attack shapes refused, of": float(len(SHAPES)),
        "refused now": float(caught_now),
        "refused by the old reading": float(caught_before),
        "import pathspec, fresh process (ms)": _import_ms(),
    }


if __name__ == "__main__":
    for key, value in bench_rules().items():
        print(f"{key:<50} {value:>10.3f}")
