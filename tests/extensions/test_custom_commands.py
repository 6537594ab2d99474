"""Issue 35 §3: custom commands in Claude Code's format — names from their path, arguments as Claude Code puts them
in, ``!`` lines through the permission policy, and consent for a project's that run something."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from catcode.app.build import build_session
from catcode.errors import CatcodeError
from catcode.extensions.custom_commands.definitions import discover_commands
from catcode.extensions.custom_commands.expand import substitute
from catcode.providers.scripted import ScriptedProvider, text_response
from catcode.safety.permissions import NoTerminalApprover
from catcode.safety.trusted_settings import load_settings
from catcode.session.session import Session
from catcode.settings.config import resolve_paths
from catcode.settings.consent import ConsentItem


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def home() -> Path:
    return Path(os.environ["CATCODE_HOME"])


@pytest.fixture
def claude() -> Path:
    return Path(os.environ["HOME"]) / ".claude"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def session(home: Path, project: Path, provider: ScriptedProvider, ask: object = None) -> Session:
    settings = load_settings(home, project, {}, {})
    return build_session(
        settings, resolve_paths(settings, home, project), approver=NoTerminalApprover(), provider=provider, env={},
        interactive=False, ask_consent=ask,  # type: ignore[arg-type]
    )  # fmt: skip


@pytest.mark.parametrize(
    ("body", "args", "expected"),
    [
        ("Fix $ARGUMENTS now", "app.py tests/", "Fix app.py tests/ now"),
        ("first=$0 second=$1 third=[$2]", "alice 'bob smith'", "first=alice second=bob smith third=[]"),
        ("[$ARGUMENTS[1]]", "a b", "[b]"),
        ("No placeholders.", "xyz", "No placeholders.\n\nARGUMENTS: xyz"),
        ("No placeholders.", "", "No placeholders."),
        ("Costs \\$1 per call: $0", "ten", "Costs $1 per call: ten"),
    ],
)
def test_arguments_go_in_as_claude_code_puts_them(body: str, args: str, expected: str) -> None:
    assert substitute(body, args) == expected


def test_names_come_from_the_path_and_front_matter_is_read(claude: Path, project: Path) -> None:
    write(
        claude / "commands" / "tools" / "greet.md", "---\ndescription: greet someone\nargument-hint: NAME\n---\nHi $0"
    )
    write(project / ".claude" / "commands" / "fixlint.md", "---\nallowed-tools: Bash(ruff check:*), Edit\n"
          "model: haiku\n---\nRun !`ruff check $ARGUMENTS` and fix it")  # fmt: skip
    write(project / ".claude" / "commands" / "plain.md", "Explain the design.\n")
    user, mine, warnings = discover_commands(claude, project)
    assert warnings == [] and [c.name for c in user] == ["tools:greet"]
    assert user[0].summary() == "Greet someone. Arguments: NAME. (user command)"
    fixlint, plain = sorted(mine, key=lambda c: c.name)
    assert fixlint.allowed_tools == ("Bash(ruff check:*)", "Edit") and fixlint.model == "haiku"
    assert fixlint.needs_consent() and not plain.needs_consent()  # only what runs or loosens needs it
    item = fixlint.consent_item(".claude/commands/fixlint.md")
    assert item.summary == ("command /fixlint that runs `ruff check $ARGUMENTS` and allows Bash(ruff check:*), Edit "
                            "(.claude/commands/fixlint.md)")  # fmt: skip


def test_a_bang_line_runs_when_its_allowed_tools_allow_it(claude: Path, home: Path, project: Path) -> None:
    write(claude / "commands" / "state.md", "---\nallowed-tools: Bash(echo:*)\n---\nState: !`echo ready $0`")
    write(claude / "commands" / "risky.md", "Go: !`touch made-it`")
    s = session(home, project, ScriptedProvider(text_response("ok")))
    assert s.custom_commands is not None
    prepared = s.custom_commands.prepare("/state now")
    assert prepared is not None and prepared.text.endswith("State: ready now")
    assert "<command-name>/state</command-name>" in prepared.text
    with pytest.raises(CatcodeError, match=r"/risky: `touch made-it` was not run — allow it with allowed-tools"):
        s.custom_commands.prepare("/risky")  # nobody to ask here, and nothing allows it
    assert not (project / "made-it").exists() and s.custom_commands.prepare("/unknown") is None


def test_a_projects_command_that_runs_something_waits_for_consent(home: Path, project: Path) -> None:
    write(project / ".claude" / "commands" / "deploy.md", "Deploy: !`./deploy.sh`")
    write(project / ".claude" / "commands" / "explain.md", "Explain $ARGUMENTS")
    asked: list[list[str]] = []

    def ask(root: Path, items: Sequence[ConsentItem]) -> bool:
        asked.append([item.summary for item in items])
        return False

    s = session(home, project, ScriptedProvider(), ask)
    assert asked == [["command /deploy that runs `./deploy.sh` (.claude/commands/deploy.md)"]]
    assert s.custom_commands is not None and s.custom_commands.prepare("/deploy") is None  # refused: not there
    explained = s.custom_commands.prepare("/explain the cache")
    assert explained is not None and explained.text.endswith("Explain the cache")
