"""``catcode -h`` and its subcommands' help (through the installed binary once, else in the test process through
the real entry point): the usage line shows the two forms people type, and every command's description is there
whole (wrapped under its column), never cut with "..."."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import catcode_argv
from tests.in_process import run_catcode
from tests.slowness import bound

GROUPS = [(), ("memory",), ("memory", "remote"), ("config",), ("mcp",)]


def help_text(project: Path, env: dict[str, str], words: tuple[str, ...], columns: int) -> str:
    """``catcode WORDS -h`` at a terminal width of ``columns``."""
    proc = run_catcode([*words, "-h"], env={**env, "COLUMNS": str(columns)}, cwd=project)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def commands(text: str) -> dict[str, str]:
    """The "Commands:" section: each name with its description, continuation lines joined."""
    section = text.split("\nCommands:\n", 1)[1]
    rows: dict[str, str] = {}
    name = ""
    for line in section.splitlines():
        if match := re.match(r"^  (\S+)\s+(.*)$", line):
            name, rows[match[1]] = match[1], match[2]
        elif line.strip() and name:
            rows[name] += " " + line.strip()
    return rows


def test_usage_shows_the_session_form_and_the_command_form(project: Path, catcode_env: dict[str, str]) -> None:
    env = {**catcode_env, "COLUMNS": "80"}
    proc = subprocess.run(
        [*catcode_argv(), "-h"], cwd=project, env=env, capture_output=True, text=True, timeout=bound(30)
    )
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout  # the console script's own help
    assert text.startswith("Usage: catcode [OPTIONS] [PROMPT]\n       catcode COMMAND [ARGS]...\n")
    assert "[PROMPT] COMMAND" not in text
    assert {"memory", "config", "mcp"} <= set(commands(text))


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_every_command_description_is_whole_at_any_width(
    project: Path, catcode_env: dict[str, str], columns: int
) -> None:
    seen = 0
    for words in GROUPS:
        text = help_text(project, catcode_env, words, columns)
        for name, description in commands(text).items():
            seen += 1
            assert not description.endswith("..."), (words, name, description)
            assert description.endswith((".", ")")), (words, name, description)  # a sentence, not a fragment
        assert max(map(len, text.splitlines())) <= max(columns, 80), words
    assert seen >= 20
    memory = commands(help_text(project, catcode_env, ("memory",), columns))
    assert memory["list"] == "List memories (name - description (type, all projects | this project)), user scope first."
    assert memory["serve"].startswith("Browse, search and undo memory changes in your browser")
