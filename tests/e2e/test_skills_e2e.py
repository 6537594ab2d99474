"""Skills in the real ``catcode`` REPL against the fake Anthropic server: the index and ``load_skill`` go with
the requests, a supporting file outside the project is readable because it is in a skill folder, ``/skills``
lists and shows skills, and a project skill (once the person allows it) replaces the user skill of the same name."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Catcode
from tests.fakes import FakeAnthropicServer, Step, text, tool_use

Spawn = Callable[..., Catcode]

EXAMPLE_SKILLS = Path(__file__).resolve().parents[2] / ".cat-code.example" / "skills"
SKILL = "release-checklist"
FOLDER_LINE = re.compile(r"^Skill release-checklist \(folder: (.+)\)$", re.M)


def install_user_skills(home_dir: Path) -> Path:
    """The shipped example skills as user skills; returns the release-checklist folder."""
    shutil.copytree(EXAMPLE_SKILLS, home_dir / ".cat-code" / "skills")
    return home_dir / ".cat-code" / "skills" / SKILL


def last_tool_result(body: dict[str, Any]) -> dict[str, Any] | None:
    """The first tool_result block of the request's last message, if it carries one."""
    content = body["messages"][-1]["content"]
    blocks = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
    return blocks[0] if blocks and not isinstance(content, str) else None


def read_the_printed_checklist(body: dict[str, Any]) -> Step | None:
    """Play the model: after load_skill, read checklist.md at the folder that tool result printed."""
    result = last_tool_result(body)
    match = FOLDER_LINE.search(str(result.get("content"))) if result else None
    return tool_use("read_file", {"path": f"{match.group(1)}/checklist.md"}) if match else None


def test_model_loads_a_user_skill_and_reads_its_checklist(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path, project: Path
) -> None:
    folder = install_user_skills(home_dir)
    skill_md = (folder / "SKILL.md").read_text()
    fake_server.enqueue(tool_use("load_skill", {"name": SKILL}), text("The release checklist is loaded."))
    fake_server.responder = read_the_printed_checklist
    cat = spawn_catcode()
    cat.prompt()
    cat.say("let's cut a release")
    cat.expect_text("The release checklist is loaded.")
    cat.prompt()

    first, after_load, after_read = fake_server.requests()
    assert "# Skills" in first.system_text
    assert f"{SKILL}: Prepare a release of this project - choose the version number" in first.system_text
    assert "load_skill" in {t["name"] for t in first.body["tools"]}

    loaded = last_tool_result(after_load.body)
    assert loaded is not None and not loaded.get("is_error")
    assert "## 1. Learn how this project releases" in loaded["content"]
    assert "Read `checklist.md` in this skill's folder" in loaded["content"]
    assert "- checklist.md" in loaded["content"]
    assert str(project) not in FOLDER_LINE.search(loaded["content"]).group(1)  # outside the project root

    checklist = last_tool_result(after_read.body)
    assert after_read.messages[-2]["content"][0]["input"]["path"].endswith(f"{SKILL}/checklist.md")
    assert checklist is not None and not checklist.get("is_error"), checklist
    assert "Work through it in order." in checklist["content"]
    assert "## Publish (only after the user's go-ahead)" in checklist["content"]
    assert "Allow Read" not in cat.output  # a skill folder is readable without asking

    cat.say("/skills")
    cat.expect(r"release-checklist\s+user\s+Prepare a release of this project")
    cat.prompt()
    cat.say(f"/skills show {SKILL}")
    cat.expect_text(f"{SKILL} (user skill)")
    cat.expect_text("## 4. Report")
    cat.prompt()
    assert skill_md.splitlines()[-1] in cat.output
    assert cat.exit() == 0
    fake_server.assert_complete()


def test_project_skill_replaces_the_user_skill(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path, project: Path
) -> None:
    install_user_skills(home_dir)
    own = project / ".cat-code" / "skills" / SKILL
    own.mkdir(parents=True)
    (own / "SKILL.md").write_text(
        f"---\nname: {SKILL}\ndescription: This project's own release steps.\n---\n"
        "# Project release\n\nRun `make release` and nothing else.\n"
    )
    fake_server.enqueue(tool_use("load_skill", {"name": SKILL}), text("Following the project's release steps."))
    cat = spawn_catcode()
    cat.expect_text(f"skill {SKILL} (.cat-code/skills/{SKILL}/SKILL.md)")  # a project skill needs consent, once
    cat.expect_text("Allow them? [y/N]")
    cat.say("y")
    cat.prompt()
    cat.say("/skills")
    cat.expect(r"release-checklist\s+project\s+This project's own release steps\.")
    cat.prompt()
    cat.say("release it")
    cat.expect_text("Following the project's release steps.")
    cat.prompt()

    first, after_load = fake_server.requests()
    assert f"{SKILL}: This project's own release steps." in first.system_text
    assert "Prepare a release of this project" not in first.system_text
    loaded = last_tool_result(after_load.body)
    assert loaded is not None and not loaded.get("is_error")
    assert "Run `make release` and nothing else." in loaded["content"]
    assert "Learn how this project releases" not in loaded["content"]
    cat.say(f"/skills show {SKILL}")
    cat.expect_text(f"{SKILL} (project skill)")
    cat.expect_text("Run `make release` and nothing else.")
    cat.prompt()
    assert cat.exit() == 0
    fake_server.assert_complete()
