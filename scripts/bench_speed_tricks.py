"""Do catcode's start-up speed tricks still earn their place? Each is measured on the path it serves today, with the
trick on and off in the same run: the same launcher, the variants interleaved (shuffled each round), medians.

The paths: time to the interactive prompt (bare ``catcode`` in a pty, default settings, memory on; the record of
validated settings with a user ``settings.yaml``) and time to the first byte of ``catcode -p hi`` against the fake
API server (memory off, so that the one queued answer is the chat's). Every variant starts Python with the same
``-c`` launcher; "off" changes only what the trick avoids:

- typer bypassed (``cli.main``'s fast path): off runs ``typer_app.run`` (typer);
- ``log.early_line`` (no structlog before the session is idle): off imports structlog first, which ``log.configure``
  then sets up at once, as it does whenever structlog is already in use;
- the ``first_screen`` record of validated settings: off makes ``remembered`` find none, so settings are validated
  (pydantic) before the prompt, as on a first start;
- the constants mirrored for import speed: off imports the module each copies from before starting (a module the
  path imports anyway costs nothing extra then, which is the point): ``anthropic._constants``
  (``lean_client.ANTHROPIC_API_VERSION``), ``catcode.settings.config`` (``first_screen``'s copies of ``Settings()``'s
  defaults; ``DEFAULT_MODEL`` is no longer copied, it is declared once in ``catcode/settings/__init__.py``),
  ``catcode.extensions.mcp.sources`` (``project_trust``'s name of Claude Code's MCP file).

Measured and removed (saved under 20 ms on every path it served; 13 paired rounds): the garbage collector paused
during start-up imports (prompt -0.9 ms, ``-p`` +8.5 ms: the lean client carries requests, so the SDK is no longer
imported on these paths), ``first_screen``'s copy of ``consent.CONSENT_FILE`` (prompt +4.0 ms: importing
``catcode.settings.consent`` costs next to nothing there) and ``cli``'s copy of the typer app's ``SUBCOMMANDS``
(prompt -2.0 ms, ``-p`` +11.6 ms: the names are now declared once in ``cli/subcommands.py``, which both
import). A trick keeps its code when it saves at least ``THRESHOLD_MS`` on a path it serves (the median of its
off-minus-on differences, paired within each round)."""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_startup import _env as prompt_env
from bench_startup import _project, time_to_prompt

THRESHOLD_MS = 20.0

ON = "from catcode.cli import main; main()"
VIA_TYPER = "from catcode.cli.typer_app import run; run()"
OFF = {
    "typer bypassed": ("", VIA_TYPER),
    "early_line": ("import structlog", ON),
    "first_screen record": ("import catcode.ui.first_screen as f; f.remembered = lambda *a: None", ON),
    "mirror ANTHROPIC_API_VERSION": ("import anthropic._constants", ON),
    "mirror DEFAULT_MODEL/defaults": ("import catcode.settings.config", ON),
    "mirror MCP file name": ("import catcode.extensions.mcp.sources", ON),
}
"""Trick -> (what runs first, the entry point) with the trick off."""

PROMPT_TRICKS = [name for name in OFF if name not in ("first_screen record", "mirror ANTHROPIC_API_VERSION")]
"""What serves the prompt (the API client is built behind it; the settings record has its own case below)."""
PRINT_TRICKS = [name for name in OFF if name not in ("first_screen record", "mirror DEFAULT_MODEL/defaults")]
"""What serves ``-p``: ``first_screen`` (and its copies of the settings' defaults) is the prompt's only."""


def _argv(prelude: str, entry: str, *args: str) -> list[str]:
    code = f"import sys; {prelude + '; ' if prelude else ''}sys.argv[0] = 'catcode'; {entry}"
    return [sys.executable, "-c", code, *args]


def _first_byte_ms(argv: list[str], project: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    proc.stdout.read(1)
    elapsed = (time.perf_counter() - start) * 1000
    proc.communicate()
    return elapsed


def _rounds(variants: dict[str, object], measure: object, rounds: int, seed: int) -> dict[str, list[float]]:
    """Each variant measured once per round, in a new random order every round."""
    times: dict[str, list[float]] = {name: [] for name in variants}
    order = list(variants)
    shuffle = random.Random(seed).shuffle
    for _ in range(rounds):
        shuffle(order)
        for name in order:
            times[name].append(measure(variants[name]))  # type: ignore[operator]
    return times


def _rows(path: str, times: dict[str, list[float]], tricks: list[str]) -> dict[str, float | str]:
    """Medians, and what each trick saves: the median of its off-minus-on differences within a round (paired, so
    that a busy moment of the machine weighs on both sides)."""
    rows: dict[str, float | str] = {f"{path}: all tricks on, median ms": statistics.median(times["on"])}
    for name in tricks:
        rows[f"{path}: {name} off, median ms"] = statistics.median(times[name])
        paired = [off - on for off, on in zip(times[name], times["on"], strict=True)]
        rows[f"{path}: {name} saves ms"] = statistics.median(paired)
    return rows


def bench_speed_tricks(rounds: int = 9) -> dict[str, float | str]:
    """On vs off for every trick, on the prompt and ``-p`` paths; the verdict per trick."""
    from tests.fakes import FakeAnthropicServer, text

    figures: dict[str, float | str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        # The interactive prompt, default settings (nothing to validate).
        home = base / "home"
        project = _project(base / "project")
        env = prompt_env(home, memory=True)
        variants: dict[str, object] = {"on": _argv("", ON)}
        variants |= {name: _argv(*OFF[name]) for name in PROMPT_TRICKS}
        time_to_prompt(project, env)  # a first start writes what later ones find (the memory folders...)
        prompt = _rounds(variants, lambda argv: time_to_prompt(project, env, argv=argv), rounds, 1)
        figures |= _rows("prompt", prompt, PROMPT_TRICKS)
        # The interactive prompt with a settings file: validated before the prompt, or drawn from the record.
        home2 = base / "home2"
        (home2 / ".cat-code").mkdir(parents=True)
        (home2 / ".cat-code" / "settings.yaml").write_text("max_tokens: 4096\n")
        env2 = prompt_env(home2, memory=True)
        time_to_prompt(project, env2)  # writes the record
        record = {"on": _argv("", ON), "first_screen record": _argv(*OFF["first_screen record"])}
        settled = _rounds(record, lambda argv: time_to_prompt(project, env2, argv=argv), rounds, 2)
        figures |= _rows("prompt with settings.yaml", settled, ["first_screen record"])
        # catcode -p hi: time to the first byte of the answer.
        with FakeAnthropicServer() as server:
            env3 = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CATCODE_"))}
            env3.update(
                HOME=str(base / "home3"),
                CATCODE_HOME=str(base / "home3" / ".cat-code"),
                CATCODE_MEMORY_ENABLED="false",
                ANTHROPIC_BASE_URL=server.base_url,
                ANTHROPIC_API_KEY="bench",
            )

            def first_byte(argv: object) -> float:
                server.enqueue(text("The answer streams here."))
                return _first_byte_ms([*argv, "-p", "hi"], project, env3)  # type: ignore[misc]

            printed = {"on": _argv("", ON)} | {name: _argv(*OFF[name]) for name in PRINT_TRICKS}
            first_byte(printed["on"])
            figures |= _rows("-p first byte", _rounds(printed, first_byte, rounds, 3), PRINT_TRICKS)
    for name in OFF:
        saved = [v for k, v in figures.items() if k.endswith(f": {name} saves ms") and isinstance(v, float)]
        figures[f"verdict: {name}"] = "keep" if max(saved) >= THRESHOLD_MS else "remove"
    return figures


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.fakes, as scripts/bench.py does
    for key, value in bench_speed_tricks(int(sys.argv[1]) if len(sys.argv) > 1 else 9).items():
        print(f"{key:<60} {value:>10.1f}" if isinstance(value, float) else f"{key:<60} {value:>10}")
