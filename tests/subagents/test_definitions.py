"""Subagent definition files in Claude Code's format, and which project definitions need consent."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catcode.extensions.inventory import gather
from catcode.extensions.subagents.definitions import DEFAULT_TOOLS, discover_agents, parse_definition
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import resolve_paths
from catcode.settings.consent import ConsentItem
from catcode.tools.base import ToolRegistry
from catcode.tools.builtin import builtin_tools

REVIEWER = """---
name: code-reviewer
description: >
  Reviews a change for bugs
  and missing tests.
tools: Read, Grep, Glob, Bash
model: haiku
---
You are a careful reviewer.
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_claude_code_format(tmp_path: Path) -> None:
    agent = parse_definition(write(tmp_path / "code-reviewer.md", REVIEWER), "user")
    assert agent.name == "code-reviewer" and agent.description == "Reviews a change for bugs and missing tests."
    assert agent.tools == ("Read", "Grep", "Glob", "Bash")
    assert agent.model == "claude-haiku-5-5" and agent.prompt == "You are a careful reviewer."
    listed = parse_definition(
        write(
            tmp_path / "x.md",
            "---\nname: x\ndescription: d\ntools: [read_file, mcp__github__search]\nmodel: inherit\n---\nbody\n",
        ),
        "project",
    )
    assert listed.tools == ("Read", "mcp__github__search") and listed.model is None
    plain = parse_definition(write(tmp_path / "plain.md", "---\ndescription: d\n---\nbody\n"), "user")
    assert plain.name == "plain" and plain.tools == DEFAULT_TOOLS  # no tools: read-only


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("no front matter\n", "no front matter"),
        ("---\nname: a\n---\nbody\n", "no description"),
        ("---\nname: Bad_Name\ndescription: d\n---\nbody\n", "is not a kebab-case slug"),
        ("---\nname: a\ndescription: d\ntools: 3\n---\nbody\n", "tools must be"),
        ("---\nname: a\ndescription: d\n---\n\n", "body (the subagent's system prompt) is empty"),
        ("---\nname: [a\n---\nbody\n", "not valid YAML"),
    ],
)
def test_a_broken_file_is_skipped_with_a_warning_naming_it(tmp_path: Path, text: str, why: str) -> None:
    bad = write(tmp_path / "home" / "agents" / "bad.md", text)
    write(tmp_path / "home" / "agents" / "good.md", "---\ndescription: fine\n---\nbody\n")
    user, project, warnings = discover_agents(tmp_path / "home", tmp_path / "project")
    assert [a.name for a in user] == ["good"] and project == []
    assert len(warnings) == 1 and str(bad) in warnings[0] and why in warnings[0]


@given(st.text(alphabet="ReadGrpGlobBashWit, _-\n", max_size=60))
def test_any_tools_line_parses_to_unique_names(line: str) -> None:
    from catcode.extensions.subagents.definitions import _tools

    names = _tools(line)
    assert len(names) == len(set(names)) and all(n and n == n.strip() for n in names)


def test_project_definitions_with_write_tools_need_consent(tmp_path: Path) -> None:
    home = Path(os.environ["CATCODE_HOME"])
    project = tmp_path / "project"
    write(home / "agents" / "helper.md", "---\nname: helper\ndescription: user one\n---\nuser body\n")
    write(project / ".cat-code" / "agents" / "helper.md", "---\nname: helper\ndescription: project one\n---\nbody\n")
    write(
        project / ".cat-code" / "agents" / "deployer.md", "---\nname: deployer\ndescription: d\ntools: Bash\n---\nb\n"
    )
    settings = load_settings(home, project, {}, {})
    paths = resolve_paths(settings, home, project)
    tools = ToolRegistry(builtin_tools())
    asked: list[Sequence[ConsentItem]] = []

    def refuse(root: Path, items: Sequence[ConsentItem]) -> bool:
        asked.append(items)
        return False

    refused = gather(paths, tools, refuse, lambda line: None)
    assert [i.summary for i in asked[0]] == ["subagent deployer with tools Bash (.cat-code/agents/deployer.md)"]
    assert refused.agents.names() == ["general-purpose", "helper"] and refused.refused_agents == ["deployer"]
    assert refused.agents.get("helper").description == "project one"  # read-only: no consent, and it wins
    (home / "consent.yaml").unlink()
    allowed = gather(paths, tools, lambda root, items: True, lambda line: None)
    assert allowed.agents.names() == ["deployer", "general-purpose", "helper"] and allowed.refused_agents == []
