"""Issue 33 §1: git's global options. ``Bash(git:*)`` never covers configuration given on the command line or in the
environment (``-c``, ``--config-env``, ``GIT_CONFIG_*``), another repository (``-C``, ``--git-dir``, ``--bare``) or
another helper folder (``--exec-path``); the harmless ones (``--no-pager``…) are looked through on both sides; and an
"always" answer offers the narrowest rule that covers the command."""

from __future__ import annotations

import pytest

from catcode.safety.permissions import PermissionPolicy, Verdict
from catcode.safety.shell_rules import suggest_rules
from catcode.tools.builtin import builtin_tools

BASH = next(t for t in builtin_tools() if t.name == "Bash")


def verdict(command: str, allow: list[str]) -> Verdict:
    return PermissionPolicy.from_strings("default", allow, []).check(BASH, {"command": command})[0]


ASKS = [
    "git -c alias.x='!touch F' x",
    "git -c core.fsmonitor='touch F' status",
    "git -c core.pager='touch F' log",
    "git -c protocol.ext.allow=always fetch 'ext::sh -c touch% F'",
    "git --config-env=core.pager=EDITOR log",
    "git --config-env core.pager=EDITOR log",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=x git log",
    "GIT_CONFIG_PARAMETERS=\"'core.pager'='x'\" git log",
    "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!id' git x",
    "git --exec-path=/tmp/helpers status",
    "git -C /tmp/elsewhere status",
    "git -C sub -c core.fsmonitor=x status",
    "git --no-pager -c core.pager=x log",
    "git --git-dir=/tmp/other/.git log",
    "git --work-tree=/ status",
    "git --bare log",
]


@pytest.mark.parametrize("command", ASKS)
@pytest.mark.parametrize("rule", ["Bash(git:*)", "bash(git*)", "bash(git *)", "Bash(git log:*)", "Bash(git status:*)"])
def test_git_star_asks(command: str, rule: str) -> None:
    assert verdict(command, [rule]) is Verdict.ASK


ALLOWED = [
    ("git grep -c TODO", "bash(git grep*)"),  # grep's -c counts matches: only a global -c sets configuration
    ("git log -C --stat", "bash(git log*)"),  # log's -C finds copies
    ("git commit -c HEAD", "bash(git commit*)"),
    ("git --no-pager log -5", "bash(git log*)"),
    ("git -P log", "Bash(git log:*)"),
    ("git --no-optional-locks status", "bash(git status*)"),
    ("git --no-pager log", "bash(git --no-pager log*)"),
    ("git -C sub status", "bash(git -C sub status*)"),  # a rule that spells -C out
    ("git status", "Bash(git:*)"),
]


@pytest.mark.parametrize(("command", "rule"), ALLOWED)
def test_harmless_spellings_stay_allowed(command: str, rule: str) -> None:
    assert verdict(command, [rule]) is Verdict.ALLOW


OFFERED = [
    ("git -C sub status", "Bash(git -C sub status*)"),
    ("git --no-pager log", "Bash(git log*)"),
    ("git -P log --oneline", "Bash(git log*)"),
    ("git status --short", "Bash(git status*)"),
    ("git -c core.fsmonitor=x status", "Bash(git -c core.fsmonitor=x status*)"),
    ("sort -o out.txt in.txt", "Bash(sort -o out.txt*)"),
    ("npm --prefix /tmp/x install", "Bash(npm --prefix /tmp/x*)"),
    ("ls -la", "Bash(ls*)"),
]


@pytest.mark.parametrize(("command", "offered"), OFFERED)
def test_always_offers_the_narrowest_rule_that_covers_the_command(command: str, offered: str) -> None:
    assert suggest_rules(command) == [offered]
    assert verdict(command, [offered]) is Verdict.ALLOW  # it covers what was answered
    assert verdict("git push --force", [offered]) is Verdict.ASK  # and not git as a whole


def test_a_deny_rule_sees_through_global_options() -> None:
    policy = PermissionPolicy.from_strings("bypass", [], ["Bash(git push:*)"])
    for line in ("git -C sub push", "git --no-pager push", "git -c a=b push --force"):
        assert policy.check(BASH, {"command": line})[0] is Verdict.DENY, line
