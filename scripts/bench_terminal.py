"""Figures for the terminal and rewind checks (issue 32 §7, §8), each against the plain way in the same run:

- a long streamed answer drawn by catcode (``MarkdownStream`` on ``Screen``: the text made visible, every
  segment checked) against the same stream on a plain ``rich`` console with nothing made visible;
- a command's output (1 MB, 10,000 lines) through the live tail and Ctrl+O's file, against the same path with
  nothing made visible;
- deleting 1,000 files of a restore by walking folders without following links, against ``unlink`` and removing
  the emptied folders by path (the restore's way before);
- the quality the checks buy, measured on the same answer holding escape sequences: control characters that reach
  the screen, with the checks and without.

``bench_terminal()`` prints nothing and returns the figures; scripts/bench.py calls it."""

from __future__ import annotations

import contextlib
import io
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console

from catcode.checkpoints import inside
from catcode.screen import Screen
from catcode.text import HIDDEN, visible
from catcode.ui import full_output as full_output_module
from catcode.ui import progress as progress_module
from catcode.ui import render as render_module
from catcode.ui.full_output import FullOutput
from catcode.ui.progress import ToolProgress
from catcode.ui.render import MarkdownStream

RUNS = 7
CALLERS = (render_module, progress_module, full_output_module)
HOSTILE = "see \x1b]0;title\x07 and \x1b]52;c;eA==\x07, \x1b[2J\x9b31m\r\x1b[2Kgone\u2028\u202eend"


def _answer(hostile: bool) -> str:
    block = (
        "## Step {i}\n\nThe loader reads `settings.yaml` first, then the **project's** own file{odd}.\n\n"
        "```python\ndef load(path):\n    return yaml.safe_load(path.read_text())\n```\n\n"
        "- one point\n- another point\n\n"
    )
    return "".join(block.format(i=i, odd=HOSTILE if hostile else "") for i in range(60))


def _paired_ms(checked: Callable[[], object], plain: Callable[[], object]) -> tuple[float, float]:
    """Median milliseconds of ``checked`` with the checks on and of ``plain`` with ``visible`` a no-op in every
    module that calls it, run in turns (a busy machine slows both alike)."""
    on, off = [], []
    for _ in range(RUNS):
        for times, run, checks in ((on, checked, True), (off, plain, False)):
            with _checks(checks):
                start = time.perf_counter()
                run()
                times.append((time.perf_counter() - start) * 1000)
    return statistics.median(on), statistics.median(off)


@contextlib.contextmanager
def _checks(on: bool) -> Iterator[None]:
    if on:
        yield
        return
    for module in CALLERS:
        module.visible = lambda text, **_: text  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for module in CALLERS:
            module.visible = visible  # type: ignore[attr-defined]


def _stream(console: Console, text: str) -> None:
    stream = MarkdownStream(console)
    for i in range(0, len(text), 20):
        stream.feed(text[i : i + 20])
    stream.finish()


def _console(kind: type[Console]) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return kind(file=out, force_terminal=True, color_system=None, width=100), out


def _leaks(text: str) -> float:
    console, out = _console(Screen)
    _stream(console, text)
    return float(len(HIDDEN.findall(out.getvalue())))


def _unchecked_leaks(text: str) -> float:
    console, out = _console(Console)
    with _checks(False):
        _stream(console, text)
    return float(len(HIDDEN.findall(out.getvalue())))


def bench_terminal() -> dict[str, float]:
    """Milliseconds for each path and its plain baseline, their ratios, and the control characters that leak."""
    answer = _answer(hostile=False)
    drawn_ms, plain_ms = _paired_ms(
        lambda: _stream(_console(Screen)[0], answer), lambda: _stream(_console(Console)[0], answer)
    )
    output = "".join(f"line {i}: building target {i} of 10000 ... ok\n" for i in range(10_000))
    output = output + "x" * max(0, 1_000_000 - len(output))
    with tempfile.TemporaryDirectory() as tmp:
        full = FullOutput(Path(tmp) / "out")

        def keep() -> None:
            progress = ToolProgress(Console(file=io.StringIO()))
            full.begin("bash(make)")
            for i in range(0, len(output), 4096):
                progress.feed(output[i : i + 4096])
                full.feed(output[i : i + 4096])
            full.end("exit code: 0")

        output_ms, unchecked_ms = _paired_ms(keep, keep)
        root = Path(tmp) / "proj"
        names = [f"pkg{i % 10}/mod{i % 7}/file{i}.py" for i in range(1000)]

        def make() -> None:
            for name in names:
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_text("x")

        def unlink(name: str) -> None:  # the delete of a restore before the checks: unlink, then emptied folders
            (root / name).unlink()
            for folder in (root / name).parents:
                if folder == root:
                    break
                try:
                    folder.rmdir()
                except OSError:
                    break

        def walked() -> None:
            make()
            for name in names:
                inside.remove(root, name)

        def unlinked() -> None:
            make()
            for name in names:
                unlink(name)

        walked_ms, unlinked_ms = _paired_ms(walked, unlinked)
    hostile = _answer(hostile=True)
    return {
        "answer of 60 blocks, made visible ms": drawn_ms,
        "answer, nothing made visible ms": plain_ms,
        "answer: visible / not": drawn_ms / plain_ms,
        "1 MB output, tail + Ctrl+O file ms": output_ms,
        "1 MB output, nothing made visible ms": unchecked_ms,
        "output: visible / not": output_ms / unchecked_ms,
        "1,000 files made + deleted, walked ms": walked_ms,
        "1,000 files made + deleted, unlink ms": unlinked_ms,
        "deletes: walked / unlink": walked_ms / unlinked_ms,
        "escapes in answer: controls on screen": _leaks(hostile),
        "escapes in answer: same, unchecked": _unchecked_leaks(hostile),
    }


if __name__ == "__main__":
    for key, value in bench_terminal().items():
        print(f"{key:<42} {value:>10,.2f}")
