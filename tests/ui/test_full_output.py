"""``FullOutput``: the last tool's whole output for Ctrl+O — redacted, within its cap, private, one per session."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catcode.ui.full_output import FullOutput

TOKEN = "ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"


def test_keeps_every_line_redacted_private_and_replaced_by_the_next_tool(tmp_path: Path) -> None:
    full = FullOutput(tmp_path / "tool-output")
    full.begin("⏺ bash(seq 1 5000)")
    lines = [f"line {n}" for n in range(1, 5001)]
    text = "\n".join(lines[:2500]) + f"\ntoken {TOKEN}\n" + "\n".join(lines[2500:])
    for start in range(0, len(text), 777):  # chunks cut anywhere, as a pipe delivers them
        full.feed(text[start : start + 777])
    full.end("exit code: 0")
    kept = full.text()
    assert kept.startswith("⏺ bash(seq 1 5000)\n\nline 1\n")
    assert kept.endswith("line 5000\nexit code: 0\n")
    assert all(f"\n{line}\n" in kept for line in lines[1:])
    assert TOKEN not in kept and "token [REDACTED:github_token]" in kept
    assert stat.S_IMODE(full.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(full.path.parent.stat().st_mode) == 0o700
    full.write("⏺ read_file(a.py)", "print(1)")
    assert full.text() == "⏺ read_file(a.py)\n\nprint(1)\n"
    full.discard()
    assert not full.path.exists() and full.text() == ""


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sizes=st.lists(st.integers(1, 400), min_size=1, max_size=40))
def test_beyond_the_cap_the_start_and_the_end_are_kept_and_the_gap_is_said(tmp_path: Path, sizes: list[int]) -> None:
    full = FullOutput(tmp_path / "out", cap=1000, tail=300)  # the same file each time: begin() empties it
    full.begin("⏺ bash(x)")
    total = ""
    for n, size in enumerate(sizes):
        chunk = f"{n}:" + "x" * size + "\n"
        total += chunk
        full.feed(chunk)
    full.end("exit code: 0")
    body = full.text().removeprefix("⏺ bash(x)\n\n").removesuffix("exit code: 0\n")
    if "characters not kept" not in body:  # within the cap, or the part past it still fits the tail
        assert body == total and len(total) <= 1000 + 300 + 403
        return
    assert body.startswith(total[:1000])
    head, _, rest = body[1000:].partition(" …]\n")
    assert "characters not kept" in head and total.endswith(rest)
    dropped = int(head.split("[… ")[1].split(" ")[0].replace(",", ""))
    assert 1000 + dropped + len(rest) == len(total)


def test_files_of_dead_sessions_are_removed(tmp_path: Path) -> None:
    folder = tmp_path / "tool-output"
    folder.mkdir()
    dead = subprocess.Popen(["true"])
    dead.wait()
    (folder / f"{dead.pid}.txt").write_text("old")
    (folder / f"{os.getppid()}.txt").write_text("a live session's")
    FullOutput(folder).begin("⏺ bash(ls)")
    assert not (folder / f"{dead.pid}.txt").exists()
    assert (folder / f"{os.getppid()}.txt").exists()
