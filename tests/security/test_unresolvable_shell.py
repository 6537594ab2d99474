"""Issue 22 §2: what a static reading of a shell line cannot resolve is never allowed by a rule, and against deny
rules braces are spelled out as bash would and the rest asks — in every mode, bypass included.

The policy is the real ``PermissionPolicy`` with the real bash tool; ``test_bypass_shapes_through_the_binary`` runs
each shape through the installed ``catcode -p`` in bypass mode and checks the folder is still there."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catcode.safety.permissions import PermissionPolicy, Verdict
from catcode.safety.shell_static import MAX_EXPANSION, TooLarge, expand_word
from catcode.tools.builtin import builtin_tools
from tests.e2e.test_print_mode import run
from tests.fakes import FakeAnthropicServer, text, tool_use

BASH = next(t for t in builtin_tools() if t.name == "Bash")
MODES = ["default", "accept-edits", "bypass"]
ALLOW = ["Bash(rm*)", "Bash(ls*)", "Bash(echo*)", "Bash(git*)", "Bash(cat*)", "Bash(eval*)", "Bash(source*)",
         "Bash(exec*)", "Bash(cd * && make)"]  # fmt: skip
DENY = ["Bash(rm -rf *)"]


def verdict(command: str, mode: str = "default", allow: list[str] = ALLOW, deny: list[str] = DENY) -> Verdict:
    return PermissionPolicy.from_strings(mode, allow, deny).check(BASH, {"command": command})[0]


# -- the shapes of the attack list, under deny: [bash(rm -rf *)] --------------------------------------------------

SPELLED_OUT = [
    ("option from braces", "rm {-rf,} d"),
    ("name from braces", "r{m,} -rf d"),
    ("whole command from braces", "{rm,-rf,d}"),
    ("glob in the name", "/bin/r? -rf d"),
    ("glob class in the name", "/bin/[r]m -rf d"),
    ("nested braces", "rm -{r{f,},} d"),
    ("sequence in braces", "rm -rf d{1..3}"),
]


@pytest.mark.parametrize(("name", "command"), SPELLED_OUT, ids=[n for n, _ in SPELLED_OUT])
@pytest.mark.parametrize("mode", MODES)
def test_braces_and_globs_are_read_as_bash_reads_them(name: str, command: str, mode: str) -> None:
    assert verdict(command, mode) is Verdict.DENY


UNRESOLVABLE = [
    ("variable as the name", "X=rm; $X -rf d"),
    ("substitution as the name", "$(echo rm) -rf d"),
    ("backticks as the name", "`echo rm` -rf d"),
    ("variable among the options", "rm $FLAGS d"),
    ("eval of a substitution", 'eval "$(cat cmd.txt)"'),
    ("source", "source ./script.sh"),
    ("dot", ". ./script.sh"),
    ("exec of a variable", "exec $CMD"),
    ("glob that is not rm", "/bin/l? -la"),
    ("shell running a variable", 'sh -c "$X"'),
    ("substitution anywhere", "echo $(date)"),
    ("huge brace expansion", "echo {1..100000}"),
    ("does not parse", "[[ -d d ]] && ls"),
]


@pytest.mark.parametrize(("name", "command"), UNRESOLVABLE, ids=[n for n, _ in UNRESOLVABLE])
@pytest.mark.parametrize("mode", MODES)
def test_what_cannot_be_resolved_asks_in_every_mode(name: str, command: str, mode: str) -> None:
    assert verdict(command, mode) is Verdict.ASK


NEVER_ALLOWED = [
    *UNRESOLVABLE,
    ("braces in an option", "git diff --{output=/x,}"),
    ("braces in an argument", "cat {README.md,/etc/passwd}"),
    ("eval of plain text", "eval ls"),
    ("exec", "exec ls"),
    ("command eval", "command eval ls"),
    ("braces against a rule with punctuation", "cd {src,/} && make"),
]


@pytest.mark.parametrize(("name", "command"), NEVER_ALLOWED, ids=[n for n, _ in NEVER_ALLOWED])
def test_an_allow_rule_never_covers_what_cannot_be_resolved(name: str, command: str) -> None:
    assert verdict(command, deny=[]) is Verdict.ASK


@pytest.mark.parametrize("command", ["ls -la", "echo 'a,{b,c}'", "git status", "cd src && make", "ls *.py"])
def test_plain_lines_are_still_allowed(command: str) -> None:
    assert verdict(command) is Verdict.ALLOW


def test_without_deny_rules_bypass_still_runs_everything() -> None:
    assert verdict("echo $(date)", "bypass", allow=[], deny=[]) is Verdict.ALLOW
    assert verdict("echo $(date)", "bypass", allow=[], deny=["read_file(secrets/**)"]) is Verdict.ALLOW


# -- brace expansion is bash's ------------------------------------------------------------------------------------


def test_brace_expansion_matches_bash() -> None:
    import subprocess

    for word in ["a{b,c}d", "{rm,-rf,d}", "r{m,}", "-{r{f,},}", "x{1..3}", "{a..c}{1,2}", "{5..1..2}", "${x,y}",
                 "{single}", "{a,b"]:  # fmt: skip
        bash = subprocess.run(["bash", "-c", f"printf '%s\\n' {word}"], capture_output=True, text=True).stdout
        assert expand_word(word) == [w for w in bash.split("\n") if w] or [""], word


@given(st.lists(st.sampled_from(["a", "b", ",", "{", "}", "-", "1", ".."]), max_size=12))
def test_brace_expansion_never_crashes_and_stays_bounded(parts: list[str]) -> None:
    try:
        assert len(expand_word("".join(parts))) <= MAX_EXPANSION
    except TooLarge:
        pass


# -- through the real binary, in bypass mode ------------------------------------------------------------------------


def test_bypass_shapes_through_the_binary(project: Path, fake_server: FakeAnthropicServer) -> None:
    shapes = [c for _, c in SPELLED_OUT[:4]] + ["X=rm; $X -rf d", 'eval "$(echo rm -rf d)"', "source ./kill.sh"]
    (project / "kill.sh").write_text("rm -rf d\n")
    (project.parent / "home" / ".cat-code").mkdir(parents=True)
    (project.parent / "home" / ".cat-code" / "settings.yaml").write_text("permissions:\n  deny: ['Bash(rm -rf *)']\n")
    fake_server.enqueue(*[tool_use("bash", {"command": c}) for c in shapes], text("Nothing was deleted."))
    for target in ("d", "d1"):
        (project / target).mkdir()
    proc = run(project, fake_server, "-p", "--permission-mode", "bypass", "clean up")
    assert proc.returncode == 0, proc.stderr
    assert (project / "d").is_dir()
    results = [r.messages[-1]["content"][0] for r in fake_server.requests()[1:]]
    assert all(r["is_error"] for r in results), results
    assert sum("denied by rule Bash(rm -rf *)" in r["content"] for r in results) == 5  # eval of a visible rm too
    assert proc.stderr.count("refused Bash(") == 2
