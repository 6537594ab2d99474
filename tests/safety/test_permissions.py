"""PermissionPolicy: modes × permission classes, allow and deny rules, session answers, Rule syntax."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catcode.errors import ConfigError
from catcode.safety.permission_rules import Rule, key_argument
from catcode.safety.permissions import ApprovalRequest, NoTerminalApprover, PermissionMode, PermissionPolicy, Verdict
from catcode.tools.base import Permission, Tool
from catcode.tools.builtin import builtin_tools

TOOLS = {t.name: t for t in builtin_tools()}
READ, WRITE, EXECUTE = TOOLS["Read"], TOOLS["Write"], TOOLS["Bash"]
A, D, Q = Verdict.ALLOW, Verdict.DENY, Verdict.ASK

EXPECTED = {
    PermissionMode.DEFAULT: (A, Q, Q),
    PermissionMode.ACCEPT_EDITS: (A, A, Q),
    PermissionMode.READ_ONLY: (A, D, D),
    PermissionMode.BYPASS: (A, A, A),
    PermissionMode.PLAN: (A, D, D),
}


def call(tool: Tool) -> dict[str, str]:
    return {"file_path": "src/app.py"} if tool.key_arg == "file_path" else {tool.key_arg or "x": "ls"}


@pytest.mark.parametrize("mode", list(PermissionMode))
@pytest.mark.parametrize("tool", [READ, WRITE, EXECUTE], ids=lambda t: t.permission.value)
def test_every_mode_and_permission_class(mode: PermissionMode, tool: Tool) -> None:
    expected = EXPECTED[mode][[Permission.READ, Permission.WRITE, Permission.EXECUTE].index(tool.permission)]
    verdict, reason = PermissionPolicy(mode).check(tool, call(tool))
    assert verdict is expected
    if verdict is D and mode is PermissionMode.READ_ONLY:
        assert reason == f"{tool.name} is not allowed in read-only mode"
    if verdict is D and mode is PermissionMode.PLAN:
        assert reason.startswith(f"plan mode: {tool.name} does not run until the person approves a plan")


def test_plan_mode_refuses_even_what_rules_and_always_answers_allow() -> None:
    policy = PermissionPolicy.from_strings("plan", ["Bash(ls*)", "write_file"], [])
    policy.session_allowed.add("Edit")
    for tool in (TOOLS["Bash"], TOOLS["Write"], TOOLS["Edit"]):
        assert policy.check(tool, call(tool))[0] is D
    assert policy.check(READ, call(READ))[0] is A


@pytest.mark.parametrize("tool", list(TOOLS.values()), ids=lambda t: t.name)
def test_builtin_tools_follow_their_class_in_default_mode(tool: Tool) -> None:
    verdict, _ = PermissionPolicy().check(tool, {})
    assert verdict is (A if tool.permission is Permission.READ else Q)


@pytest.mark.parametrize(
    ("command", "expected"),
    [("git status", A), ("git status --short", A), ("git push", Q), ("echo; git status", Q)],
)
def test_bash_allow_rule_matches_the_command(command: str, expected: Verdict) -> None:
    policy = PermissionPolicy.from_strings("default", ["Bash(git status*)"], [])
    assert policy.check(EXECUTE, {"command": command})[0] is expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [("docs/a.md", A), ("docs/deep/er/b.md", A), ("./docs/c.md", A), ("src/docs/a.md", Q), ("README.md", Q)],
)
def test_write_allow_rule_matches_the_path(path: str, expected: Verdict) -> None:
    policy = PermissionPolicy.from_strings("default", ["write_file(docs/**)"], [])
    assert policy.check(WRITE, {"file_path": path})[0] is expected
    # The rule names write_file, so edit_file still asks.
    assert policy.check(TOOLS["Edit"], {"file_path": path})[0] is Q


def test_a_rule_without_pattern_covers_every_call() -> None:
    policy = PermissionPolicy.from_strings("default", ["bash"], [])
    assert policy.check(EXECUTE, {"command": "rm -rf build"})[0] is A


@pytest.mark.parametrize("mode", list(PermissionMode))
def test_deny_wins_over_allow_and_every_mode(mode: PermissionMode) -> None:
    policy = PermissionPolicy.from_strings(mode.value, ["bash"], ["Bash(rm *)"])
    assert policy.check(EXECUTE, {"command": "rm -rf /"}) == (D, "denied by rule Bash(rm *)")
    refused = mode in (PermissionMode.READ_ONLY, PermissionMode.PLAN)
    assert policy.check(EXECUTE, {"command": "ls"})[0] is (D if refused else A)


def test_deny_applies_to_read_tools_too() -> None:
    policy = PermissionPolicy.from_strings("bypass", [], ["read_file(.env)"])
    assert policy.check(READ, {"file_path": ".env"}) == (D, "denied by rule Read(.env)")
    assert policy.check(READ, {"file_path": "README.md"})[0] is A


def test_read_only_refuses_even_with_an_allow_rule_or_session_answer() -> None:
    policy = PermissionPolicy.from_strings("read-only", ["Bash(git status*)", "write_file"], [])
    policy.session_allowed.add("Bash")
    assert policy.check(EXECUTE, {"command": "git status"})[0] is D
    assert policy.check(WRITE, {"file_path": "a.txt"})[0] is D


def test_session_always_answer_allows_the_tool_for_the_session() -> None:
    policy = PermissionPolicy(deny=[Rule.parse("Bash(sudo *)")])
    assert policy.check(EXECUTE, {"command": "make"})[0] is Q
    policy.session_allowed.add("Bash")
    assert policy.check(EXECUTE, {"command": "make test"})[0] is A
    assert policy.check(WRITE, {"file_path": "a.txt"})[0] is Q
    assert policy.check(EXECUTE, {"command": "sudo make install"})[0] is D


@pytest.mark.parametrize("text", ["", "   ", "Bash(git", "bash git", "1tool", "Bash(x)y", "(x)"])
def test_rule_parse_errors_name_the_rule(text: str) -> None:
    with pytest.raises(ConfigError) as err:
        Rule.parse(text)
    assert str(err.value).startswith(f"Invalid permission rule {text!r}")


def test_rule_parse_accepts_spacing_and_star() -> None:
    assert Rule.parse("  bash(git *)  ") == Rule("Bash", "git *")
    assert Rule.parse("Bash(*)").matches("Bash", None)
    assert not Rule.parse("Bash(git *)").matches("Bash", None)
    assert not Rule.parse("bash").matches("Grep", "x")


@given(st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,12}", fullmatch=True), st.none() | st.text(max_size=20))
def test_rule_text_round_trips(tool: str, pattern: str | None) -> None:
    rule = Rule(tool if tool.startswith("mcp__") else tool.lower(), pattern)  # names are kept lowercase
    assert Rule.parse(str(rule)) == rule
    assert Rule.parse(str(Rule(tool, pattern))) == rule


def test_key_argument_is_the_declared_argument() -> None:
    assert key_argument(EXECUTE, {"command": "ls", "timeout": 5}) == "ls"
    assert key_argument(WRITE, {"content": "x"}) is None


def test_describe_lists_mode_rules_and_session_answers() -> None:
    policy = PermissionPolicy.from_strings("accept-edits", ["Bash(git *)"], ["Bash(rm *)"])
    policy.session_allowed.add("Bash")
    assert policy.describe() == ("mode: accept-edits\nallow: Bash(git *)\ndeny: Bash(rm *)\nallowed this session: Bash")


def test_no_terminal_approver_denies_with_a_reason() -> None:
    decision = NoTerminalApprover().ask(ApprovalRequest(EXECUTE, {"command": "make"}))
    assert not decision.allowed and not decision.always
    assert "no terminal" in decision.reason and "Bash(" in decision.reason
