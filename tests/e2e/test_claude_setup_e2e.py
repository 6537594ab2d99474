"""Issue 35: a home and a project holding a Claude Code setup — settings with rules and hooks, a statusLine,
commands, agents, skills, the CLAUDE.md family — used by the real ``catcode`` binary as Claude Code uses them.

The hooks are a collection written from Claude Code's hooks reference: a Bash command validator, a formatter after
Edit/Write, a prompt-context injector and a Stop gate (``HOOKS``). Most checks are ``catcode -p`` runs against the
fake server (the person's own ``~/.claude`` needs no consent); one terminal session holds what only a terminal
shows: the consent questions for the project's ``.claude/``, ``!cmd``, Shift+Tab to plan mode. (The status line is
``tests/ui/test_status_line.py``'s: prompt_toolkit draws no toolbar in a terminal that does not answer its cursor
position requests, as these pseudo-terminals do not.)"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Catcode
from tests.e2e.test_claude_compat_e2e import run
from tests.fakes import FakeAnthropicServer, text, tool_use

Spawn = Callable[..., Catcode]

VALIDATOR = """#!/usr/bin/env python3
# The hooks reference's Bash command validator: exit 2 sends the reasons to the model.
import json, re, sys
RULES = [(r"\\bgrep\\b(?!.*\\|)", "Use 'rg' (ripgrep) instead of 'grep' for better performance and features"),
         (r"\\bfind\\s+\\S+\\s+-name\\b", "Use 'rg --files | rg pattern' instead of 'find -name'")]
data = json.load(sys.stdin)
if data.get("tool_name") != "Bash":
    sys.exit(0)
command = data.get("tool_input", {}).get("command", "")
issues = [message for pattern, message in RULES if re.search(pattern, command)]
if issues:
    for message in issues:
        print(f"• {message}", file=sys.stderr)
    sys.exit(2)
"""
FORMATTER = """#!/usr/bin/env python3
# A formatter after Edit and Write: trailing whitespace off the Python file just written.
import json, sys
path = json.load(sys.stdin).get("tool_input", {}).get("file_path", "")
if path.endswith(".py"):
    lines = open(path).read().splitlines()
    open(path, "w").write("\\n".join(line.rstrip() for line in lines) + "\\n")
"""
INJECTOR = """#!/usr/bin/env python3
# A prompt-context injector: what the model should know with every message.
import json, sys
json.load(sys.stdin)
print("Current sprint: Q3-auth. Staging is frozen.")
"""
STOP_GATE = """#!/usr/bin/env python3
# A Stop gate: the model may stop once the tests ran (or when it is already going on because of this hook).
import json, os, sys
data = json.load(sys.stdin)
if not data.get("stop_hook_active") and "tests pass" not in data.get("last_assistant_message", ""):
    print(json.dumps({"decision": "block", "reason": "Run the tests (make test) before you stop."}))
"""


def write(path: Path, content: str, executable: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    if executable:
        path.chmod(0o755)
    return path


def claude_home(home_dir: Path, **settings: Any) -> Path:
    """The person's ``~/.claude``: CLAUDE.md, a rule, a skill, a command, hooks scripts, and ``settings``."""
    claude = home_dir / ".claude"
    write(claude / "CLAUDE.md", "Never force-push to main.\n")
    write(claude / "rules" / "tone.md", "Answer in short sentences.\n")
    skill = "---\nname: release-notes\ndescription: Write release notes from the git log.\n---\nRead git log.\n"
    write(claude / "skills" / "release-notes" / "SKILL.md", skill)
    write(claude / "commands" / "greet.md", "---\ndescription: Greet someone\n---\nSay hello to $0.\n")
    for name, body in (("validator.py", VALIDATOR), ("format.py", FORMATTER), ("inject.py", INJECTOR),
                       ("stop_gate.py", STOP_GATE)):  # fmt: skip
        write(claude / "hooks" / name, body, executable=True)
    write(claude / "settings.json", json.dumps(settings))
    return claude


def hook(command: str, matcher: str = "") -> dict[str, Any]:
    return {"matcher": matcher, "hooks": [{"type": "command", "command": command}]}


HOOKS = {
    "PreToolUse": [hook("python3 ~/.claude/hooks/validator.py", "Bash")],
    "PostToolUse": [hook("python3 ~/.claude/hooks/format.py", "Edit|MultiEdit|Write")],
    "UserPromptSubmit": [hook("python3 ~/.claude/hooks/inject.py")],
    "Stop": [hook("python3 ~/.claude/hooks/stop_gate.py")],
}


def claude_project(project: Path) -> None:
    """The project's ``.claude``: settings with a deny rule and a hook, a command, an agent, rules, CLAUDE.md files."""
    write(project / "CLAUDE.md", "Run make test before committing.\n")
    write(project / "CLAUDE.local.md", "My staging host is stage-3.\n")
    write(project / ".claude" / "rules" / "style.md", "Use four spaces.\n")
    write(project / "sub" / "CLAUDE.md", "The sub package is generated: never edit it.\n")
    write(project / "sub" / "gen.txt", "generated\n")
    write(project / ".env", "SECRET=1\n")
    write(project / "app.py", "print('hi')\n")
    write(project / ".claude" / "commands" / "fixlint.md",
          "---\ndescription: Fix the lint errors of a file\nargument-hint: FILE\n---\nFix the lint errors in "
          "@$0 and keep its behaviour.\n")  # fmt: skip
    write(project / ".claude" / "agents" / "reviewer.md",
          "---\nname: reviewer\ndescription: Reviews a change for bugs.\ntools: Read, Grep, Glob\n---\n"
          "You review code.\n")  # fmt: skip
    write(project / ".claude" / "settings.json", json.dumps({
        "permissions": {"deny": ["Read(./.env)"], "allow": ["Bash(date:*)"]},
        "hooks": {"PreToolUse": [hook("python3 $CLAUDE_PROJECT_DIR/.claude/hooks/audit.py", "Bash")]},
    }))  # fmt: skip
    write(
        project / ".claude" / "hooks" / "audit.py",
        "import json, sys\nopen('audit.log', 'a').write(json.load(sys.stdin)['tool_input']['command'] + '\\n')\n",
    )


def results(request: Any) -> list[str]:
    last = request.body["messages"][-1]["content"]
    return [str(b.get("content")) for b in last if isinstance(b, dict) and b.get("type") == "tool_result"]


def test_the_hooks_reference_collection_behaves_as_in_claude_code(
    project: Path, home_dir: Path, catcode_env: dict, fake_server: FakeAnthropicServer
) -> None:
    claude_home(home_dir, hooks=HOOKS)
    fake_server.enqueue(
        tool_use("Bash", {"command": "grep -r TODO ."}, id="t1"),
        tool_use("Write", {"file_path": "fmt.py", "content": "x = 1   \ny = 2\t\n"}, id="t2"),
        text("Done."),
        text("Ran make test: the tests pass."),
    )
    proc = run(project, catcode_env, "-p", "tidy up", "--permission-mode", "acceptEdits")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Ran make test: the tests pass.\n"  # the last answer only, as Claude Code prints it
    first, after_grep, _after_write, after_stop = fake_server.requests()
    user = first.body["messages"][0]["content"]  # the injector's context rides on the message
    assert [b["text"] for b in user] == [
        "tidy up",
        '<hook-context event="UserPromptSubmit">\nCurrent sprint: Q3-auth. Staging is frozen.\n</hook-context>',
    ]
    assert results(after_grep) == ["Blocked: • Use 'rg' (ripgrep) instead of 'grep' for better performance and "
                                   "features"]  # fmt: skip
    assert (project / "fmt.py").read_text() == "x = 1\ny = 2\n"  # formatted after the write
    assert after_stop.body["messages"][-1]["content"][0]["text"] == (
        "Stop hook feedback:\nRun the tests (make test) before you stop."
    )


def test_settings_rules_env_model_and_the_claude_md_family(
    project: Path, home_dir: Path, catcode_env: dict, fake_server: FakeAnthropicServer
) -> None:
    claude_home(home_dir, model="haiku", env={"TEAM_NAME": "blue"},
                permissions={"allow": ["Bash(echo:*)", "Bash(printenv:*)"]})  # fmt: skip
    claude_project(project)
    fake_server.enqueue(
        tool_use("bash", {"command": "echo from-a-rule"}, id="t1"),
        tool_use("bash", {"command": "printenv TEAM_NAME"}, id="t2"),
        tool_use("read_file", {"path": ".env"}, id="t3"),
        tool_use("read_file", {"path": "sub/gen.txt"}, id="t4"),
        text("Done."),
    )
    proc = run(project, catcode_env, "-p", "look around")
    assert proc.returncode == 0, proc.stderr
    first, *rest = fake_server.requests()
    assert first.body["model"].startswith("claude-haiku-")  # Claude Code's "haiku", the newest one
    system = first.system_text
    order = ["Never force-push to main.", "Answer in short sentences.", "Run make test before committing.",
             "Use four spaces.", "My staging host is stage-3."]  # fmt: skip
    assert [system.index(line) for line in order] == sorted(system.index(line) for line in order)
    assert "never edit it" not in system  # sub/CLAUDE.md comes with the first file read there
    assert results(rest[0])[0].startswith("from-a-rule")  # allowed by ~/.claude/settings.json, not asked
    assert results(rest[1])[0].startswith("blue")  # env from the settings reaches the commands
    assert results(rest[2]) == ["Permission denied: denied by rule Read(./.env)."]  # the project's deny rule
    assert "Contents of sub/CLAUDE.md:\n\n" in results(rest[3])[0]
    assert "The sub package is generated: never edit it." in results(rest[3])[0]
    assert "hook PreToolUse [Bash]" in proc.stderr and "not using" in proc.stderr.lower()  # project hook: no consent
    assert not (project / "audit.log").exists()


def test_commands_agents_and_skills_from_claude_codes_folders(
    project: Path, home_dir: Path, catcode_env: dict, fake_server: FakeAnthropicServer
) -> None:
    claude_home(home_dir)
    claude_project(project)
    fake_server.enqueue(text("Fixed."), text("Hello, Ada!"))
    fixed = run(project, catcode_env, "-p", "/fixlint app.py")
    assert fixed.returncode == 0 and fixed.stdout.strip() == "Fixed.", fixed.stderr
    greeted = run(project, catcode_env, "-p", "/greet Ada")
    assert greeted.returncode == 0 and greeted.stdout.strip() == "Hello, Ada!", greeted.stderr
    fix, greet = fake_server.requests()
    sent = json.dumps(fix.body["messages"][0])
    assert "<command-name>/fixlint</command-name>" in sent and "Fix the lint errors in @app.py" in sent
    assert "print('hi')" in sent  # @app.py attached the file, as in any message
    assert "Say hello to Ada." in json.dumps(greet.body["messages"][0])
    tools = {tool["name"]: tool for tool in fix.body["tools"]}
    assert "reviewer" in tools["Task"]["description"]  # .claude/agents/reviewer.md
    assert "release-notes: Write release notes from the git log." in fix.system_text  # ~/.claude/skills


def test_catcode_mcp_add_list_get_remove_as_claude_mcp(project: Path, catcode_env: dict, home_dir: Path) -> None:
    added = run(project, catcode_env, "mcp", "add", "-s", "project", "-e", "TOKEN=abc", "echo", "--", "python3",
                "-m", "echo_server", "--verbose")  # fmt: skip
    assert added.returncode == 0 and "Added stdio MCP server echo to project config" in added.stdout, added.stderr
    assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["echo"] == {
        "type": "stdio", "command": "python3", "args": ["-m", "echo_server", "--verbose"], "env": {"TOKEN": "abc"},
    }  # fmt: skip
    web = run(project, catcode_env, "mcp", "add", "--transport", "http", "docs", "https://example.com/mcp",
              "-H", "Authorization: Bearer secret")  # fmt: skip
    assert web.returncode == 0, web.stderr
    listed = run(project, catcode_env, "mcp", "list")
    assert listed.stdout.splitlines() == [
        "docs: http: https://example.com/mcp (local)",
        "echo: stdio: python3 -m echo_server --verbose (project)",
    ]  # added by you: allowed, never asked about
    got = run(project, catcode_env, "mcp", "get", "docs")
    assert "Headers: Authorization (values not shown)" in got.stdout and "secret" not in got.stdout
    removed = run(project, catcode_env, "mcp", "remove", "docs")
    assert removed.returncode == 0 and "docs" not in run(project, catcode_env, "mcp", "list").stdout


def test_doctor_names_what_of_a_claude_code_setup_is_not_used(project: Path, home_dir: Path, catcode_env: dict) -> None:
    claude_home(home_dir, theme="dark", permissions={"allow": ["WebFetch(domain:docs.python.org)"]})
    write(home_dir / ".claude" / "output-styles" / "terse.md", "Be terse.\n")
    proc = run(project, catcode_env, "doctor")
    out = proc.stdout
    assert "Claude Code setup read: settings user (" in out and "instructions ~/.claude/CLAUDE.md" in out
    assert "not used: theme (no catcode equivalent)" in out and "WebFetch(domain:docs.python.org)" in out
    assert "output-styles not read — output styles: catcode has none" in out


@pytest.mark.timeout(120)
def test_a_terminal_session_with_a_claude_code_setup(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path, home_dir: Path
) -> None:
    claude_home(home_dir)
    claude_project(project)
    subprocess.run(["git", "-C", str(project), "add", "."], check=True, capture_output=True)
    cat = spawn_catcode()
    # The consent questions, before the prompt: what would loosen the prompts, then what would run, each listed.
    cat.expect_text("allow rule Bash(date:*) (.claude/settings.json)")
    cat.expect_text("Allow them?")
    cat.say("y")
    cat.expect_text(
        "hook PreToolUse [Bash]: python3 $CLAUDE_PROJECT_DIR/.claude/hooks/audit.py (.claude/settings.json)"
    )
    cat.expect_text("Allow them?")
    cat.say("y")
    cat.expect_text("Instructions: ~/.claude/CLAUDE.md, ~/.claude/rules/tone.md, CLAUDE.md, .claude/rules/style.md, "
                    "CLAUDE.local.md · Memory: off")  # fmt: skip
    cat.prompt()
    cat.say("!echo hello from the shell")
    cat.expect_text("hello from the shell")
    cat.prompt()
    cat.send("\x1b[Z")
    cat.expect_text("Permission mode: accept-edits")
    cat.prompt()
    cat.send("\x1b[Z")
    cat.expect_text("Permission mode: plan")  # the second press, as in Claude Code
    cat.prompt()
    cat.say("/help")
    cat.expect_text("/fixlint")
    cat.expect_text("Not as in Claude Code: /memory")
    cat.prompt()
    fake_server.enqueue(text("It printed hello."))
    cat.say("what did that print?")
    cat.expect_text("It printed hello.")
    cat.prompt()
    assert cat.exit() == 0
    [request] = fake_server.requests()
    sent = [block["text"] for block in request.body["messages"][0]["content"]]
    assert sent[:2] == ["<bash-input>echo hello from the shell</bash-input>",
                        "<bash-stdout>hello from the shell</bash-stdout><bash-stderr></bash-stderr>"]  # fmt: skip
    assert sent[2] == "what did that print?"
