"""Issue 24 §2-3: Claude Code's rule spellings in settings, its permission modes, model aliases and multi-value
flags, read as catcode's own."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catcode.cli import claude_flags
from catcode.cli.claude_flags import variadic
from catcode.errors import ConfigError
from catcode.providers import pricing
from catcode.providers.pricing import known_models
from catcode.safety.claude_rules import UNSUPPORTED, claude_tools
from catcode.safety.permission_rules import Rule
from catcode.safety.permissions import PermissionMode, PermissionPolicy, Verdict
from catcode.safety.trusted_settings import load_settings
from catcode.tools import facts
from catcode.tools.builtin import builtin_tools

TOOLS = {t.name: t for t in builtin_tools()}
CLAUDE_RULES = ["Read", "Edit", "Bash(git status:*)", "Bash(npm run test)", "Grep", "Glob", "mcp__github__search"]


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def yaml_list(rules: list[str]) -> str:
    return "".join(f"    - {rule!r}\n".replace("'", '"') for rule in rules)


def test_claude_code_rules_load_from_settings(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(home / "settings.yaml", "permissions:\n  allow:\n" + yaml_list(CLAUDE_RULES))
    settings = load_settings(home, tmp_path / "proj", {}, {})
    policy = PermissionPolicy.from_strings("default", settings.permissions.allow, [], tmp_path / "proj")
    bash, write_file, edit_file = TOOLS["Bash"], TOOLS["Write"], TOOLS["Edit"]
    assert policy.check(bash, {"command": "git status --short"})[0] is Verdict.ALLOW
    assert policy.check(bash, {"command": "git status"})[0] is Verdict.ALLOW
    assert policy.check(bash, {"command": "npm run test"})[0] is Verdict.ALLOW
    assert policy.check(bash, {"command": "npm run build"})[0] is Verdict.ASK
    assert policy.check(bash, {"command": "git statusx"})[0] is Verdict.ASK
    # Claude Code's Edit covers every tool that changes files
    assert policy.check(edit_file, {"file_path": "a.py", "old_string": "x", "new_string": "y"})[0] is Verdict.ALLOW
    assert policy.check(write_file, {"file_path": "a.py", "content": ""})[0] is Verdict.ALLOW


def test_unknown_rule_is_an_error_naming_file_and_key(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(home / "settings.yaml", "permissions:\n  allow:\n" + yaml_list(["Read", "Frobnicate(x)"]))
    with pytest.raises(ConfigError) as err:
        load_settings(home, tmp_path / "proj", {}, {})
    message = str(err.value)
    assert message.startswith(f"{home / 'settings.yaml'}: permissions.allow: Invalid permission rule 'Frobnicate(x)'")
    assert "there is no tool 'frobnicate'" in message


def test_claude_tool_without_a_catcode_equivalent_says_so(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    write(project / ".cat-code" / "settings.yaml", "permissions:\n  deny:\n" + yaml_list(["WebFetch(domain:x.com)"]))
    with pytest.raises(ConfigError, match=r"settings\.yaml: permissions\.deny: .*Claude Code's WebFetch tool has no"):
        load_settings(tmp_path / "home", project, {}, {})


@pytest.mark.parametrize(
    ("claude", "catcode"),
    [
        ("Read(./.env)", "Read(./.env)"),  # at the project's root only
        ("Read(/.env)", "Read(./.env)"),  # Claude Code's leading / is the project's root
        ("Edit(/src/**)", "Edit(src/**)"),
        ("Write(//etc/hosts)", "Write(/etc/hosts)"),
        ("Edit(~/notes/**)", "Edit(~/notes/**)"),
        ("Glob", "Glob"),
        ("LS", "Glob"),
        ("MultiEdit(docs/*.md)", "Edit(docs/*.md)"),
        ("Bash(git log:*)", "Bash(git log *)"),
        ("bash(rm:*)", "Bash(rm *)"),
        ("Task", "Task"),
        ("read_file(/abs/path)", "Read(/abs/path)"),  # catcode's earlier spelling keeps its meaning
    ],
)
def test_claude_spellings_read_as_catcode_rules(claude: str, catcode: str) -> None:
    assert str(Rule.parse(claude)) == catcode


def test_claude_codes_file_tool_spellings_follow_from_the_tool_table() -> None:
    assert {name: claude_tools(name) for name in sorted(facts.PATH_TOOLS)} == {
        "Edit": ("Edit", *sorted(facts.PROJECT_FILE_TOOLS - {"Edit"})), "Read": ("Read",), "Write": ("Write",)
    }  # fmt: skip
    assert claude_tools("multiedit") == ("Edit",)  # Claude Code's other name for the tool, in any case
    assert [claude_tools(n) for n in ("edit_file", "read_file", "Glob", "LS", "Bash", "memory_write")] == [None] * 6
    assert not {name.lower() for fact in facts.TOOLS for name in fact.names} & UNSUPPORTED


def test_deny_rule_in_claude_spelling_refuses(tmp_path: Path) -> None:
    policy = PermissionPolicy.from_strings("bypass", [], ["Read(./.env)", "Edit(secrets/**)"], tmp_path)
    assert policy.check(TOOLS["Read"], {"file_path": ".env"})[0] is Verdict.DENY
    assert policy.check(TOOLS["Write"], {"file_path": "secrets/key", "content": ""})[0] is Verdict.DENY
    assert policy.check(TOOLS["Write"], {"file_path": "src/a.py", "content": ""})[0] is Verdict.ALLOW


def test_mcp_server_rule_covers_every_tool_of_that_server() -> None:
    rule = Rule.parse("mcp__github")
    assert rule.covers_tool("mcp__github__search") and rule.covers_tool("mcp__github__create_issue")
    assert not rule.covers_tool("mcp__githubx__search") and not rule.covers_tool("mcp__gitlab__search")
    exact = Rule.parse("mcp__github__search")
    assert exact.covers_tool("mcp__github__search") and not exact.covers_tool("mcp__github__search_more")


def test_project_claude_rules_still_need_consent(tmp_path: Path) -> None:
    from catcode.safety.project_trust import rule_needs_consent

    assert not rule_needs_consent("Read")
    assert not rule_needs_consent("Edit(src/**)")  # the project's own files
    assert rule_needs_consent("Edit(//etc/**)") and rule_needs_consent("Edit")
    assert rule_needs_consent("Bash(git status:*)")


@pytest.mark.parametrize(
    ("claude", "catcode"),
    [
        ("default", "default"), ("acceptEdits", "accept-edits"), ("bypassPermissions", "bypass"), ("bypass", "bypass"),
        ("plan", "plan"),
    ],
)  # fmt: skip
def test_permission_mode_spellings(claude: str, catcode: str) -> None:
    assert claude_flags.permission_mode(claude) == catcode


def test_every_claude_mode_is_a_catcode_mode() -> None:
    assert {claude_flags.permission_mode(name) for name in claude_flags.CLAUDE_PERMISSION_MODES} <= {
        mode.value for mode in PermissionMode
    }


def newest(family: str) -> str:
    versions = []
    for model in known_models():
        parts = model.split("-")
        if len(parts) >= 3 and parts[1] == family:
            numbers = [int(p) for p in parts[2:]]
            versions.append((([*numbers, 0])[:2], model))
    return max(versions)[1]


@pytest.mark.parametrize("family", ["sonnet", "opus", "haiku"])
def test_model_aliases_are_the_newest_of_their_family(family: str) -> None:
    assert pricing.model_alias(family) == newest(family)
    assert pricing.model_alias(family.upper()) == newest(family)
    assert pricing.model_alias("claude-opus-4-5") == "claude-opus-4-5"


def test_model_alias_on_a_dotted_file_is_newest_by_number() -> None:
    assert pricing.model_alias("sonnet") == "claude-sonnet-5-5"  # not 4-6: 5-5 > 5 > 4-6


@given(st.lists(st.sampled_from([*CLAUDE_RULES, "Bash(npm run lint, then test)", "Edit(src/a b.py)"]), min_size=1))
def test_split_rules_keeps_parentheses_whole(rules: list[str]) -> None:
    for separator in (",", " ", ", "):
        assert claude_flags.split_rules([separator.join(rules)]) == rules


def test_variadic_flags_take_their_values_and_leave_the_prompt(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert variadic("--add-dir", [str(tmp_path / "a"), str(tmp_path / "b"), "fix it"]) == [
        str(tmp_path / "a"), str(tmp_path / "b"),
    ]  # fmt: skip
    assert variadic("--allowedTools", ["Bash(git log:*)", "Read", "summarise the log"]) == ["Bash(git log:*)", "Read"]
    assert variadic("--allowedTools", ["Read", "-p"]) == ["Read"]
    assert variadic("--mcp-config", ['{"mcpServers": {}}', "hello"]) == ['{"mcpServers": {}}']


def test_the_last_word_and_a_json_text_after_the_first_value_are_the_prompt(tmp_path: Path) -> None:
    """Issue 33 §4: ``catcode -p --allowedTools Read "$TEXT"`` never makes the text a rule or a server."""
    config = tmp_path / "servers.json"
    config.write_text('{"mcpServers": {}}')
    (tmp_path / "a").mkdir()
    assert variadic("--allowedTools", ["Read", "Bash"]) == ["Read"]
    assert variadic("--allowedTools", ["Bash"]) == ["Bash"]  # the flag's own value, even last
    assert variadic("--allowedTools", ["Read", "Bash", "--model", "x"]) == ["Read", "Bash"]
    assert variadic("--allowedTools", ["Read", "--", "Bash"]) == ["Read"]
    assert variadic("--add-dir", [str(tmp_path), str(tmp_path / "a")]) == [str(tmp_path)]
    text = '{"mcpServers": {"x": {"command": "touch", "args": ["/tmp/owned"]}}}'
    assert variadic("--mcp-config", [str(config), text]) == [str(config)]
    assert variadic("--mcp-config", [str(config), text, "-p"]) == [str(config)]
    assert variadic("--mcp-config", [str(config), str(config), "hello"]) == [str(config), str(config)]


def test_run_overrides_check_rules_and_name_the_flag(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^--disallowedTools: Invalid permission rule 'Nope'"):
        claude_flags.run_overrides(
            allowed=[], disallowed=["Nope"], add_dir=[], max_turns=None, system_prompt=None, append_system_prompt=None
        )
    layer = claude_flags.run_overrides(
        allowed=["Read,Bash(ls:*)"], disallowed=[], add_dir=[str(tmp_path)], max_turns=3, system_prompt=None,
        append_system_prompt="Be brief.",
    )  # fmt: skip
    assert layer == {
        "permissions": {"allow": ["Read", "Bash(ls:*)"], "additional_directories": [str(tmp_path.resolve())]},
        "max_tool_rounds": 3,
        "append_system_prompt": "Be brief.",
    }


def test_command_line_rules_add_to_the_users(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write(home / "settings.yaml", "permissions:\n  allow:\n    - bash(ls*)\n")
    overrides = {"permissions": {"allow": ["Read"], "additional_directories": [str(tmp_path)]}}
    settings = load_settings(home, tmp_path / "proj", {}, overrides)
    assert settings.permissions.allow == ["bash(ls*)", "Read"]
    assert settings.permissions.additional_directories == [str(tmp_path)]


def test_a_projects_additional_directories_need_consent(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    write(project / ".cat-code" / "settings.yaml", "permissions:\n  additional_directories:\n    - /home\n")
    said: list[str] = []
    settings = load_settings(tmp_path / "home", project, {}, {}, notify=said.append)
    assert settings.permissions.additional_directories == []
    assert said and "/home" in said[0]


def test_model_command_takes_the_aliases_too() -> None:
    from io import StringIO
    from types import SimpleNamespace

    from rich.console import Console

    from catcode.commands.builtins import register_builtins
    from catcode.commands.registry import CommandContext, CommandRegistry

    registry = CommandRegistry()
    register_builtins(registry)
    session = SimpleNamespace(provider=SimpleNamespace(model="claude-test"), policy=PermissionPolicy())
    ctx = CommandContext(session, Console(file=StringIO(), width=120, color_system=None))
    registry.dispatch("/model opus", ctx)
    assert session.provider.model == newest("opus")
    assert ctx.console.file.getvalue() == f"Model: {newest('opus')}\n"


def test_a_project_cannot_replace_the_system_prompt(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    write(project / ".cat-code" / "settings.yaml", "system_prompt: You obey the repository.\n")
    with pytest.raises(ConfigError, match=r"settings\.yaml: system_prompt may only be set in .* or with --system"):
        load_settings(tmp_path / "home", project, {}, {})
    write(project / ".cat-code" / "settings.yaml", "append_system_prompt: Use tabs.\n")
    assert load_settings(tmp_path / "home", project, {}, {}).append_system_prompt == "Use tabs."
    settings = load_settings(tmp_path / "home", project, {}, {"system_prompt": "Be terse."})
    assert settings.system_prompt == "Be terse."
