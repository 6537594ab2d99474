"""Scoped "always" answers and the shell-aware rule matching behind them (``catcode.safety.shell_rules``)."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import yaml
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from catcode.safety.permissions import ApprovalRequest, Decision, PermissionPolicy, Verdict
from catcode.safety.settings_writer import rule_consent, save_allow_rules
from catcode.safety.shell_rules import MULTI_WORD, suggest_rules
from catcode.settings.consent import ConsentStore
from catcode.tools.builtin import builtin_tools
from catcode.ui.approval import TerminalApprover

BASH = next(t for t in builtin_tools() if t.name == "Bash")
RESERVED = {"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "in",
            "function", "select", "time", "coproc"}  # fmt: skip
WORDS = st.from_regex(r"[a-z][a-z0-9_.-]{0,7}", fullmatch=True).filter(lambda w: w not in RESERVED)
COMMANDS = st.lists(WORDS, min_size=1, max_size=4)


def check(policy: PermissionPolicy, command: str) -> Verdict:
    return policy.check(BASH, {"command": command})[0]


def always(line: str) -> PermissionPolicy:
    policy = PermissionPolicy()
    policy.remember(BASH, Decision(True, always=True, rules=tuple(suggest_rules(line))))
    return policy


def same_scope(a: list[str], b: list[str]) -> bool:
    keep = 2 if a[0] in MULTI_WORD and len(a) > 1 else 1
    return b[:keep] == a[:keep]


@given(COMMANDS, COMMANDS, st.sampled_from([";", "&&", "||", "|", "&", "\n"]))
def test_a_scoped_always_allow_never_covers_a_different_or_compound_command(
    first: list[str], other: list[str], operator: str
) -> None:
    line, other_line = " ".join(first), " ".join(other)
    policy = always(line)
    assert check(policy, line) is Verdict.ALLOW
    if not same_scope(first, other):
        assert check(policy, other_line) is Verdict.ASK
        assert check(policy, f"{line} {operator} {other_line}") is Verdict.ASK
        assert check(policy, f"{other_line} {operator} {line}") is Verdict.ASK
    assert check(policy, f"{line} $({other_line})") is Verdict.ASK
    assert check(policy, f"{line} `{other_line}`") is Verdict.ASK
    assert check(policy, f"{line} > {other[0]}") is Verdict.ASK


def test_always_on_a_compound_command_offers_one_rule_per_part_not_the_tool() -> None:
    out = StringIO()
    answers = iter(["a"])
    approver = TerminalApprover(Console(file=out, width=200, color_system=None), lambda prompt: next(answers))
    decision = approver.ask(ApprovalRequest(BASH, {"command": "ls -la && git status --short"}))
    assert decision == Decision(True, always=True, rules=("Bash(ls*)", "Bash(git status*)"))
    assert "a: always allow Bash(ls*), Bash(git status*) this session" in out.getvalue()
    policy = PermissionPolicy()
    policy.remember(BASH, decision)
    assert check(policy, "git status") is Verdict.ALLOW and check(policy, "ls src && git status") is Verdict.ALLOW
    assert check(policy, "rm -rf build") is Verdict.ASK  # the example: no longer runs unasked
    assert check(policy, "ls; rm -rf x") is Verdict.ASK
    assert "allowed this session: Bash(ls*), Bash(git status*)" in policy.describe()


def test_always_is_not_offered_for_lines_no_rule_can_cover() -> None:
    out = StringIO()
    answers = iter(["a", "y"])
    approver = TerminalApprover(Console(file=out, width=200, color_system=None), lambda prompt: next(answers))
    decision = approver.ask(ApprovalRequest(BASH, {"command": "echo $(date) > log.txt"}))
    assert decision == Decision(True)  # "a" was refused with an explanation, then "y" answered
    assert "a: not offered" in out.getvalue() and "cannot be allowed by a rule" in out.getvalue()


def test_saving_an_always_allow_writes_local_settings_and_records_consent(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "project"
    root.mkdir()
    (root / ".cat-code").mkdir()
    (root / ".cat-code" / "settings.local.yaml").write_text("permissions:\n  allow:\n    - bash(make*)\n")
    line = save_allow_rules(["Bash(git status*)"], home=home, project_root=root, env={})
    assert line == "Saved Bash(git status*) to .cat-code/settings.local.yaml"
    data = yaml.safe_load((root / ".cat-code" / "settings.local.yaml").read_text())
    assert data["permissions"]["allow"] == ["bash(make*)", "Bash(git status*)"]
    assert ((root / ".cat-code" / "settings.local.yaml").stat().st_mode & 0o777) == 0o600
    item = rule_consent("Bash(git status*)")
    assert (item.kind, item.key) == ("settings", "permissions.allow Bash(git status*)")
    assert item.content == "Bash(git status*)"
    assert ConsentStore(home).decision(root, item) is True


def test_the_s_answer_saves_through_the_injected_saver() -> None:
    saved: list[list[str]] = []
    out = StringIO()
    answers = iter(["s"])

    def save(rules: list[str]) -> str:
        saved.append(rules)
        return "Saved"

    approver = TerminalApprover(Console(file=out, width=200, color_system=None), lambda p: next(answers), save=save)
    decision = approver.ask(ApprovalRequest(BASH, {"command": "git status"}))
    assert decision.rules == ("Bash(git status*)",) and saved == [["Bash(git status*)"]]
    assert "[y/n/a/s, Enter = no]" not in out.getvalue()  # the prompt itself is passed to read, not printed
    assert "s: and save to .cat-code/settings.local.yaml" in out.getvalue()


def test_shift_tab_cycle_reaches_plan_on_the_second_press_and_never_lands_on_bypass() -> None:
    policy = PermissionPolicy()
    seen = [policy.cycle_mode().value for _ in range(6)]
    assert seen == ["accept-edits", "plan", "default", "accept-edits", "plan", "default"]
    skipping = PermissionPolicy.from_strings("bypass", [], [])  # started with --dangerously-skip-permissions
    assert [skipping.cycle_mode().value for _ in range(4)] == ["default", "accept-edits", "plan", "bypass"]
    read_only = PermissionPolicy.from_strings("read-only", [], [])
    assert read_only.cycle_mode().value == "default"
