"""``catcode memory search`` without the argument parser: which command lines the quick path reads as the typer
command does (any other goes to typer, with its own messages), and the installed console script in a fresh home,
then after a memory file is written by hand (no catcode involved), then again once the index is in step."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from catcode.cli.quick_search_cli import search_words
from tests.memory.test_quick_search import past_a_tick, write_by_hand
from tests.slowness import bound


@pytest.mark.parametrize(
    ("args", "read"),
    [
        (["vim"], ("vim", 10, False)),
        (["which", "editor"], ("which editor", 10, False)),
        (["--json", "-n", "5", "redis", "queue"], ("redis queue", 5, True)),
        (["redis", "--limit", "100", "queue", "--json"], ("redis queue", 100, True)),
        (["--limit=7", "x"], ("x", 7, False)),
        (["--", "-n", "what's", "--json?"], ("-n what's --json?", 10, False)),
        (["-", "dash"], ("- dash", 10, False)),
        ([], None),
        (["--help"], None),
        (["-h"], None),
        (["-n", "0", "x"], None),
        (["-n", "101", "x"], None),
        (["-n", "+5", "x"], None),
        (["-n5", "x"], None),
        (["-n"], None),
        (["--limit", "x"], None),
        (["--jsonx", "x"], None),
        (["--json"], None),
        (["-x", "vim"], None),
    ],
)
def test_the_words_are_read_as_the_typer_command_reads_them_or_left_to_it(
    args: list[str], read: tuple[str, int, bool] | None
) -> None:
    assert search_words(args) == read


@pytest.mark.process
@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_console_script_searches_a_fresh_home_and_a_memory_written_by_hand(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(CATCODE_HOME=str(tmp_path / "home"), CATCODE_USER_ID="tester")
    script = Path(sys.executable).parent / "catcode"

    def search(*words: str) -> tuple[int, str, str]:
        done = subprocess.run(
            [str(script), "memory", "search", *words], cwd=project, env=env, capture_output=True, text=True,
            timeout=bound(60),
        )  # fmt: skip
        return done.returncode, done.stdout, done.stderr

    assert search("vim") == (0, "No memories match vim.\n", "")
    folder = next((tmp_path / "home" / "memory" / "projects").iterdir())
    write_by_hand(folder, "user-prefers-vim", "use vim for every edit")
    code, out, err = search("vim")
    assert (code, err) == (0, "") and out.startswith("memory user-prefers-vim, ") and "use vim for every edit" in out
    for _ in range(3):  # the later ones answer from the index once it is in step: the same line
        past_a_tick(folder)
        assert search("vim") == (0, out, "")
    assert search("--json", "-n", "1", "vim")[1].startswith('{"kind": "memory", "source": "memory user-prefers-vim"')
