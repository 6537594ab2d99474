"""Issue 34 §4: inside the fence, print mode runs a command line the parser proves read-only without a rule; any
doubt (a writing option, a redirection, a path outside the project, a program that is not a reader) asks."""

from __future__ import annotations

from pathlib import Path

import pytest

from catcode.safety.permissions import PermissionPolicy, Verdict
from catcode.safety.shell_reads import proves_read_only
from catcode.tools.builtin import builtin_tools

BASH = next(t for t in builtin_tools() if t.name == "Bash")


@pytest.mark.parametrize(
    "line", ["ls", "ls -la src", "cat README.md", "git status", "git log --oneline -5", "wc -l *.py | sort -n",
             "grep -rn TODO src && git diff"],
)  # fmt: skip
def test_proven_read_only(line: str, tmp_path: Path) -> None:
    assert proves_read_only(line, tmp_path)


@pytest.mark.parametrize(
    "line", ["rm -rf build", "cat ~/.ssh/id_rsa", "cat /etc/passwd", "cat ../secret", "ls > out.txt",
             "echo $(whoami)", "sort -o out.txt in.txt", "find . -delete", "git branch -D main", "git push",
             "./ls", "X=1 ls", "cat a; rm b", "git -c core.pager=evil log"],
)  # fmt: skip
def test_anything_else_is_not(line: str, tmp_path: Path) -> None:
    assert not proves_read_only(line, tmp_path)


def test_print_mode_runs_it_inside_the_fence_and_asks_outside(tmp_path: Path) -> None:
    policy = PermissionPolicy.from_strings("default", [], [], tmp_path)
    policy.fenced_reads, policy.fenced = True, True
    assert policy.check(BASH, {"command": "git status"})[0] is Verdict.ALLOW
    assert policy.check(BASH, {"command": "touch x"})[0] is Verdict.ASK
    policy.fenced = False  # no fence: it asks as before
    assert policy.check(BASH, {"command": "git status"})[0] is Verdict.ASK
