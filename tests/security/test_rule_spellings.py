"""Issue 33 §1: a rule means the same in either spelling and on either side. ``Rule.parse`` is the one reader of a
rule's text for allow and deny lists: whatever an allow rule of catcode's or Claude Code's spelling lets run, the
same text as a deny rule refuses (a property over generated rules and command lines, and over file patterns and
paths); Claude Code's ``:*`` denies; file rules match as gitignore does, on the real path."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from catcode.errors import ConfigError
from catcode.safety.permission_rules import Rule
from catcode.safety.permissions import PermissionPolicy, Verdict
from catcode.tools.builtin import builtin_tools
from catcode.tools.facts import names_of

TOOLS = {name: t for t in builtin_tools() for name in names_of(t.name)}  # by any of their names (read_file: Read)
ROOT = Path("/work/project")

# -- the property: allowed by a rule's text ⇒ denied by the same text -----------------------------------------------

PROGRAMS = ["git", "rm", "ls", "npm", "sort", "cat", "echo", "make", "find"]
WORDS = ["status", "commit", "log", "push", "run", "test", "-rf", "-fr", "-r", "-f", "--force", "-la", "-C", "sub",
         "-c", "x=y", "--no-pager", "-o", "out", "victim_dir", "*.py", "a b", "--short", "-m", "msg"]  # fmt: skip
JOINERS = [" ; ", " && ", " || ", " | ", "\n"]


@st.composite
def commands(draw: st.DrawFn) -> str:
    program = draw(st.sampled_from(PROGRAMS))
    words = draw(st.lists(st.sampled_from(WORDS), max_size=4))
    return " ".join([program, *(f"'{w}'" if " " in w else w for w in words)])


SPELLINGS = ["{t}({p}*)", "{t}({p} *)", "{t}({p}:*)", "{t}({p})", "{t}({p} * {w})"]


@st.composite
def shell_rule_texts(draw: st.DrawFn, head: str | None = None) -> str:
    """A bash rule in one of the spellings people write: ``bash(P*)``, ``bash(P *)``, ``Bash(P:*)``, an exact
    ``Bash(P)``, a glob ``bash(P * W)``."""
    spelling = draw(st.sampled_from(SPELLINGS))
    tool = draw(st.sampled_from(["bash", "Bash", "BASH"]))
    return spelling.format(t=tool, p=head or draw(commands()), w=draw(st.sampled_from(WORDS)))


@st.composite
def lines(draw: st.DrawFn, first: str | None = None) -> str:
    parts = [first] if first else []
    parts += draw(st.lists(commands(), min_size=0 if first else 1, max_size=2))
    joiners = [draw(st.sampled_from(JOINERS)) for _ in parts[1:]]
    return parts[0] + "".join(j + p for j, p in zip(joiners, parts[1:], strict=True))


@st.composite
def rules_and_lines(draw: st.DrawFn) -> tuple[str, str]:
    """A rule and a line; half the time the line starts with the rule's own command, so that it is often allowed."""
    head = draw(commands())
    rule = draw(shell_rule_texts(head))
    if draw(st.booleans()):
        return rule, draw(lines())
    extra = draw(st.lists(st.sampled_from(WORDS), max_size=2))
    return rule, draw(lines(" ".join([head, *(f"'{w}'" if " " in w else w for w in extra)])))


def shell_verdict(mode: str, allow: list[str], deny: list[str], line: str) -> Verdict:
    return PermissionPolicy.from_strings(mode, allow, deny, ROOT).check(TOOLS["Bash"], {"command": line})[0]


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(case=rules_and_lines())
@example(case=("bash(git --no-pager status*)", "git status"))  # a harmless git option in the rule hid the command
@example(case=("bash(git st*us *)", "git status --short"))  # a glob inside the words: no prefix, a plain match
def test_what_an_allow_rule_lets_run_the_same_text_denies(case: tuple[str, str]) -> None:
    rule, line = case
    if shell_verdict("default", [rule], [], line) is Verdict.ALLOW:
        assert shell_verdict("bypass", [], [rule], line) is Verdict.DENY, (rule, line)


@given(case=rules_and_lines())
def test_either_spelling_reads_the_same(case: tuple[str, str]) -> None:
    """``Bash(P:*)`` and ``bash(P *)`` are one rule: the same verdict on both sides."""
    rule, line = case
    if ":*)" not in rule:
        return
    other = rule.replace(":*)", " *)").replace("Bash(", "bash(").replace("BASH(", "bash(")
    for allow, deny in (([rule], []), ([], [rule])):
        twin = ([other], []) if allow else ([], [other])
        assert shell_verdict("default", allow, deny, line) is shell_verdict("default", *twin, line)


# -- Claude Code's deny spelling denies ----------------------------------------------------------------------------

DENIED = [
    ("Bash(rm:*)", "rm -rf victim_dir"),
    ("Bash(rm:*)", "rm victim_dir"),
    ("Bash(rm -rf:*)", "rm -rf victim_dir"),
    ("Bash(rm -rf:*)", "rm -fr victim_dir"),
    ("Bash(rm -rf:*)", "cd x && /bin/rm --recursive --force victim_dir"),
    ("Bash(git commit:*)", "git commit -m x"),
    ("Bash(git commit:*)", "git -C sub commit -m x"),
    ("Bash(git commit:*)", "git --no-pager commit"),
    ("bash(rm:*)", "bash -c 'rm -rf victim_dir'"),
]


@pytest.mark.parametrize(("rule", "line"), DENIED)
def test_claude_code_deny_spelling_denies_in_bypass_mode(rule: str, line: str) -> None:
    assert shell_verdict("bypass", [], [rule], line) is Verdict.DENY


def test_a_prefix_deny_keeps_to_whole_words() -> None:
    assert shell_verdict("bypass", [], ["Bash(ls:*)"], "lsof -i") is Verdict.ALLOW
    assert shell_verdict("bypass", [], ["Bash(git commit:*)"], "git status") is Verdict.ALLOW


# -- file rules: gitignore's matching, in either spelling ---------------------------------------------------------

FILE_CASES = [
    # (rule, path, matches)
    ("Read(**/.env)", ".env", True),
    ("Read(**/.env)", "config/.env", True),
    ("Read(.env)", ".env", True),
    ("Read(.env)", "config/.env", True),
    ("Read(.env)", "config/x.env", False),
    ("Read(**/*.pem)", "k.pem", True),
    ("Read(**/*.pem)", "a/b/k.pem", True),
    ("Read(*.pem)", "a/b/k.pem", True),
    ("Read(/.env)", ".env", True),  # Claude Code's leading /: the project's root
    ("Read(/.env)", "config/.env", False),
    ("Read(./.env)", ".env", True),
    ("Read(./.env)", "config/.env", False),
    ("Read(src/*.py)", "src/a.py", True),
    ("Read(src/*.py)", "lib/src/a.py", False),  # a slash in the middle anchors it
    ("Read(src/*)", "src/sub/deep.py", True),  # src/sub matches, and so everything in it
    ("Read(secrets)", "secrets/key", True),  # a pattern that matches a folder matches what is in it
    ("Read(secrets/)", "a/secrets/key", True),
    ("Read(docs/**)", "docs", False),
    ("Read(//etc/**)", "/etc/passwd", True),  # Claude Code's // is absolute
    ("Read(/etc/**)", "/etc/passwd", False),  # ... and its / is the project: <project>/etc/**
    ("read_file(/etc/**)", "/etc/passwd", True),  # catcode's own spelling: absolute
    ("read_file(.env)", "config/.env", True),
    ("read_file(**/*.pem)", "k.pem", True),
    ("Read(.env)", "/elsewhere/app/.env", True),  # a pattern without a slash matches outside the project too
    ("Read(src/**)", "/elsewhere/src/a.py", False),
    ("Read(*.py)", "a.pyc", False),
]


def file_verdict(mode: str, allow: list[str], deny: list[str], path: str, tool: str = "read_file") -> Verdict:
    policy = PermissionPolicy.from_strings(mode, allow, deny, ROOT)
    return policy.check(TOOLS[tool], {"path": path, "content": "", "old_string": "a", "new_string": "b"})[0]


@pytest.mark.parametrize(("rule", "path", "matches"), FILE_CASES)
def test_file_rules_match_as_gitignore(rule: str, path: str, matches: bool) -> None:
    assert (file_verdict("bypass", [], [rule], path) is Verdict.DENY) is matches


@pytest.mark.parametrize(("rule", "path", "matches"), FILE_CASES)
def test_edit_rules_match_the_same_on_both_sides(rule: str, path: str, matches: bool) -> None:
    """Claude Code's ``Edit`` covers every tool that changes files; allow and deny read the pattern alike."""
    edit, tools = (
        (rule.replace("Read(", "Edit("), ("write_file", "edit_file"))
        if rule.startswith("Read(")
        else (rule.replace("read_file(", "edit_file("), ("edit_file",))
    )
    for tool in tools:
        assert (file_verdict("bypass", [], [edit], path, tool) is Verdict.DENY) is matches
        assert (file_verdict("default", [edit], [], path, tool) is Verdict.ALLOW) is matches


def test_home_patterns(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert file_verdict("bypass", [], ["Read(~/.ssh/**)"], str(tmp_path / ".ssh" / "id_ed25519")) is Verdict.DENY
    assert file_verdict("bypass", [], ["Read(~/.ssh/**)"], "~/.ssh/id_ed25519") is Verdict.DENY
    assert file_verdict("bypass", [], ["Read(~/.ssh/**)"], ".ssh/id_ed25519") is Verdict.ALLOW


FILE_PATTERNS = [".env", "**/.env", "*.pem", "**/*.pem", "/.env", "./.env", "src/**", "src/*.py", "secrets",
                 "secrets/", "docs/*", "//etc/**", "k.pem", "a/**/b"]  # fmt: skip
PATHS = [".env", "config/.env", "k.pem", "a/k.pem", "src/a.py", "src/x/y.py", "secrets/key", "a/secrets/key",
         "docs/a.md", "docs/x/y.md", "/etc/passwd", "/tmp/x/.env", "a/b", "a/x/y/b", "lib/src/a.py"]  # fmt: skip


@given(
    pattern=st.sampled_from(FILE_PATTERNS),
    tool=st.sampled_from(["Edit", "edit_file", "Write", "write_file"]),
    path=st.sampled_from(PATHS),
)
def test_what_a_file_allow_rule_lets_through_the_same_text_denies(pattern: str, tool: str, path: str) -> None:
    """(Reads never ask, so the allow side of a file rule is about the tools that write.)"""
    rule = f"{tool}({pattern})"
    target = "edit_file" if tool == "edit_file" else "write_file"
    if file_verdict("default", [rule], [], path, target) is Verdict.ALLOW:
        assert file_verdict("bypass", [], [rule], path, target) is Verdict.DENY, (rule, path)


def test_a_link_is_matched_where_it_leads(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    (tmp_path / "docs").mkdir()
    os.symlink("../.git/config", tmp_path / "docs" / "notes.md")
    os.symlink(".env", tmp_path / "harmless.txt")
    (tmp_path / ".env").write_text("KEY=1\n")
    policy = PermissionPolicy.from_strings("default", ["Edit(docs/**)"], ["Read(.env)"], tmp_path)
    write = {"path": "docs/notes.md", "content": "x"}
    assert policy.check(TOOLS["Write"], write)[0] is Verdict.ASK  # its real place is .git/config
    assert policy.check(TOOLS["Write"], {"path": "docs/new.md", "content": "x"})[0] is Verdict.ALLOW
    assert policy.check(TOOLS["Read"], {"path": "harmless.txt"})[0] is Verdict.DENY


def test_a_pattern_that_is_no_pattern_is_a_settings_error() -> None:
    with pytest.raises(ConfigError, match=r"Invalid permission rule 'Read\(\[z-a\]\)'"):
        Rule.parse("Read([z-a])")


@given(st.text(alphabet="[]!^-\\az*?/.#~ ", max_size=8))
def test_the_quick_check_refuses_exactly_what_the_matcher_cannot_compile(pattern: str) -> None:
    """``path_rules.check`` runs at start-up without importing pathspec; it must agree with the compiled matcher."""
    from catcode.safety import path_rules

    try:
        path_rules._compile(pattern)
        refused = False
    except (ValueError, re.error):
        refused = True
    try:
        path_rules.check(pattern)
        mine = False
    except ConfigError:
        mine = True
    assert mine is refused, pattern


def test_reading_file_rules_leaves_pathspec_for_the_first_match() -> None:
    """The library is imported when a file rule is first matched, not while settings are read before a request."""
    import subprocess
    import sys

    code = (
        "import sys; from catcode.safety.permissions import PermissionPolicy; "
        "PermissionPolicy.from_strings('default', ['Edit(src/**)'], ['Read(**/.env)', 'Read([a-z]*.pem)']); "
        "print('pathspec' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
