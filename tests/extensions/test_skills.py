"""Skills: discovery and validation, the index hook, the load_skill tool, the /skills texts, the shipped example."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from structlog.testing import capture_logs

from catcode.conversation.messages import Role
from catcode.extensions.skills import discovery as skills_module
from catcode.extensions.skills.discovery import SkillsIndexHook, discover_skills, load_skill_tool, skills_index
from catcode.extensions.skills.model import MAX_SKILL_BYTES, SkillError, SkillSet
from catcode.extensions.skills.text import MAX_LISTED_FILES, format_skill, format_skill_list
from catcode.hooks.bus import CONTINUE, AppendMessages, HookContext, HookEvent, HookManager
from catcode.tools.base import Permission, ToolContext, ToolRegistry

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parents[1] / "data" / "skills"


def write_skill(
    skills_dir: Path,
    folder: str,
    content: str | bytes | None = None,
    *,
    name: str | None = None,
    description: str = "Does a thing.",
    body: str = "Do it well.\n",
) -> Path:
    """Create ``skills_dir/folder/SKILL.md`` (default: valid, named after the folder) and return its path."""
    path = skills_dir / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    if content is None:
        front = yaml.safe_dump({"name": name or folder, "description": description}, allow_unicode=True, width=10**6)
        content = f"---\n{front}---\n{body}"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def user_skills(home: Path) -> Path:
    return home / "skills"


def project_skills(project: Path) -> Path:
    return project / ".cat-code" / "skills"


def run_load_skill(skill_set: SkillSet, name: str, project: Path):
    """Run the tool the way the agent does: parse the raw input, execute through the registry."""
    t = load_skill_tool(skill_set)
    registry = ToolRegistry([t])
    return registry.execute(t, t.parse({"name": name}), ToolContext(project_root=project))


# ---- discovery -------------------------------------------------------------------------------------------


def test_discovers_user_and_project_skills_sorted_with_project_overriding_user(home: Path, project: Path) -> None:
    write_skill(user_skills(home), "zeta", description="User zeta.")
    write_skill(user_skills(home), "shared", description="User version.")
    write_skill(project_skills(project), "shared", description="Project version.")
    write_skill(project_skills(project), "alpha", description="Project  alpha,\n  on two lines.")
    (user_skills(home) / "README.md").write_text("not a skill folder")  # loose files are ignored
    (user_skills(home) / ".hidden").mkdir()  # hidden folders are ignored

    result = discover_skills(home, project)

    assert result.warnings == []
    assert [(s.name, s.source, s.description) for s in result.skills] == [
        ("alpha", "project", "Project alpha, on two lines."),
        ("shared", "project", "Project version."),
        ("zeta", "user", "User zeta."),
    ]
    shared = result.get("shared")
    assert shared is not None and shared.path == project_skills(project) / "shared" / "SKILL.md"
    assert shared.folder == project_skills(project) / "shared"
    assert result.get("missing") is None
    assert result.folders() == [s.folder.resolve() for s in result.skills]


def test_missing_skill_directories_give_an_empty_set(home: Path, project: Path) -> None:
    result = discover_skills(home, project)
    assert result.skills == [] and result.warnings == []


def test_project_dir_that_is_the_user_dir_is_counted_once_as_user(tmp_path: Path) -> None:
    # Working in the home directory: <home>/.cat-code is both CATCODE_HOME and the project's .cat-code.
    write_skill(tmp_path / ".cat-code" / "skills", "one")
    result = discover_skills(tmp_path / ".cat-code", tmp_path)
    assert [(s.name, s.source) for s in result.skills] == [("one", "user")]


def test_body_strips_front_matter_and_keeps_later_rules(home: Path, project: Path) -> None:
    write_skill(user_skills(home), "doc", body="\n# Title\n\nText\n\n---\n\nAfter a rule.\n\n")
    skill = discover_skills(home, project).skills[0]
    assert skill.body() == "# Title\n\nText\n\n---\n\nAfter a rule."


def test_crlf_and_bom_files_are_accepted(home: Path, project: Path) -> None:
    write_skill(user_skills(home), "win", "\ufeff---\r\nname: win\r\ndescription: Windows file.\r\n---\r\nBody\r\n")
    result = discover_skills(home, project)
    assert result.warnings == []
    assert result.skills[0].description == "Windows file."
    assert result.skills[0].body() == "Body"


INVALID = {
    "no-front-matter": ("# Just markdown\n", "no YAML front matter"),
    "unclosed": ("---\nname: unclosed\ndescription: x\n", "no closing '---'"),
    "broken-yaml": ("---\nname: broken-yaml\ndescription: [unclosed\n---\nbody\n", "not valid YAML"),
    "colon-in-value": ("---\nname: colon-in-value\ndescription: Use when: releasing\n---\n", "quote a value"),
    "not-mapping": ("---\n- a list\n---\nbody\n", "not a mapping"),
    "no-name": ("---\ndescription: x\n---\nbody\n", "no 'name'"),
    "no-description": ("---\nname: no-description\n---\nbody\n", "no 'description'"),
    "blank-description": ("---\nname: blank-description\ndescription: '  '\n---\n", "no 'description'"),
    "upper": ("---\nname: Upper-Case\ndescription: x\n---\n", "not a kebab-case slug"),
    "spaces": ("---\nname: has spaces\ndescription: x\n---\n", "not a kebab-case slug"),
    "dots": ("---\nname: ../escape\ndescription: x\n---\n", "not a kebab-case slug"),
    "long": ("---\nname: " + "a" * 65 + "\ndescription: x\n---\n", "longer than 64"),
    "mismatch": ("---\nname: other-name\ndescription: x\n---\n", "does not match its folder"),
    "long-description": ("---\nname: long-description\ndescription: " + "d" * 1025 + "\n---\n", "longer than 1024"),
    "non-utf8": (b"---\nname: non-utf8\ndescription: caf\xe9\n---\n", "not valid UTF-8"),
    "too-big": ("---\nname: too-big\ndescription: x\n---\n" + "x" * MAX_SKILL_BYTES, "larger than 256 KB"),
}


@pytest.mark.parametrize("folder", sorted(INVALID))
def test_each_invalid_skill_is_skipped_with_one_warning_naming_the_file(folder: str, home: Path, project: Path) -> None:
    content, reason = INVALID[folder]
    bad = write_skill(project_skills(project), folder, content)
    write_skill(project_skills(project), "good")

    with capture_logs() as logs:
        result = discover_skills(home, project)

    assert result.names() == ["good"]
    assert len(result.warnings) == 1
    assert str(bad) in result.warnings[0] and reason in result.warnings[0]
    assert "\n" not in result.warnings[0]
    skipped = [e for e in logs if e["event"] == "skill_skipped"]
    assert len(skipped) == 1 and skipped[0]["path"] == str(bad) and skipped[0]["log_level"] == "warning"


def test_folder_without_skill_md_and_skill_md_that_is_a_directory_are_skipped(home: Path, project: Path) -> None:
    (user_skills(home) / "empty").mkdir(parents=True)
    (user_skills(home) / "weird" / "SKILL.md").mkdir(parents=True)
    result = discover_skills(home, project)
    assert result.skills == []
    assert result.warnings == [
        f"Skipped skill {user_skills(home) / 'empty' / 'SKILL.md'}: no SKILL.md in the folder",
        f"Skipped skill {user_skills(home) / 'weird' / 'SKILL.md'}: SKILL.md is not a regular file",
    ]


def test_unreadable_skill_is_skipped_with_a_warning(home: Path, project: Path, monkeypatch) -> None:
    path = write_skill(user_skills(home), "locked")
    if os.geteuid() != 0:  # root reads anything, so simulate the refusal there
        path.chmod(0)
    else:
        real_open = Path.open

        def refuse(self: Path, *args, **kwargs):
            if self == path:
                raise PermissionError(13, "Permission denied")
            return real_open(self, *args, **kwargs)

        monkeypatch.setattr(Path, "open", refuse)
    result = discover_skills(home, project)
    assert result.skills == []
    assert result.warnings == [f"Skipped skill {path}: cannot read it (Permission denied)"]


def test_skill_file_that_went_bad_after_discovery_raises_a_readable_error(home: Path, project: Path) -> None:
    path = write_skill(user_skills(home), "fleeting")
    skill = discover_skills(home, project).skills[0]
    path.unlink()
    with pytest.raises(SkillError, match=r"Cannot load skill fleeting from .*SKILL.md: no SKILL.md"):
        skill.body()


@given(description=st.text(min_size=1, max_size=300).filter(lambda s: s.strip() and "\x00" not in s))
def test_any_description_yields_one_index_line(description: str) -> None:
    """Whatever text a description holds (newlines, colons, quotes, unicode), the index gets one line for it."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        front = yaml.safe_dump({"name": "any", "description": description}, allow_unicode=True)
        write_skill(root / "home" / "skills", "any", f"---\n{front}---\nBody\n")
        result = discover_skills(root / "home", root)
    if result.warnings:  # only YAML-unrepresentable text may be refused, and then with a reason
        assert "Skipped skill" in result.warnings[0]
        return
    expected = " ".join(description.split())
    assert result.skills[0].description == expected
    index = skills_index(result)
    assert index.splitlines()[-1] == f"any: {expected}"


# ---- index hook ------------------------------------------------------------------------------------------


def golden_skill_set(home: Path, project: Path) -> SkillSet:
    write_skill(user_skills(home), "release-checklist", description="Cut a release: version, changelog, tag.")
    write_skill(project_skills(project), "write-a-migration", description="How we write database migrations.")
    write_skill(user_skills(home), "code-review", description="Review a diff:\n  correctness first, then style.")
    return discover_skills(home, project)


def test_index_hook_matches_golden_and_is_byte_stable(home: Path, project: Path) -> None:
    hook = SkillsIndexHook(golden_skill_set(home, project))
    context = HookContext(HookEvent.PRE_LLM_REQUEST)

    first, second = hook(context), hook(context)

    assert isinstance(first, AppendMessages) and isinstance(second, AppendMessages)
    assert len(first.messages) == 1 and first.messages[0].role is Role.SYSTEM
    text = first.messages[0].text
    assert text == (GOLDEN / "index.golden.txt").read_text(encoding="utf-8")
    assert second.messages[0].text.encode() == text.encode()
    # A fresh discovery of the same files (a new session) produces the very same bytes too.
    assert SkillsIndexHook(discover_skills(home, project)).text == text


def test_index_hook_through_the_hook_manager(home: Path, project: Path) -> None:
    manager = HookManager()
    manager.on(HookEvent.PRE_LLM_REQUEST, SkillsIndexHook(golden_skill_set(home, project)))
    outcome = manager.emit(HookContext(HookEvent.PRE_LLM_REQUEST))
    assert [m.text for m in outcome.appended] == [(GOLDEN / "index.golden.txt").read_text(encoding="utf-8")]


def test_index_hook_continues_when_there_are_no_skills(home: Path, project: Path) -> None:
    hook = SkillsIndexHook(discover_skills(home, project))
    assert hook(HookContext(HookEvent.PRE_LLM_REQUEST)) is CONTINUE


def test_index_beyond_its_budget_lists_the_rest_by_name(home: Path, project: Path) -> None:
    for i in range(40):
        write_skill(user_skills(home), f"skill-{i:02d}", description="d" * 500)
    index = skills_index(discover_skills(home, project))
    assert len(index) < skills_module.INDEX_BUDGET_CHARS + 40 * 12
    last = index.splitlines()[-1]
    assert last.startswith("More skills (descriptions left out to keep this list short): ")
    assert last.endswith("skill-38, skill-39")
    assert "skill-00: ddd" in index


# ---- load_skill ------------------------------------------------------------------------------------------


def test_load_skill_returns_body_folder_and_its_other_files(home: Path, project: Path) -> None:
    path = write_skill(project_skills(project), "deploy", body="\nRun `make deploy`. See checklist.md.\n")
    folder = path.parent
    (folder / "checklist.md").write_text("- [ ] step")
    (folder / "templates").mkdir()
    (folder / "templates" / "notes.md").write_text("notes")
    (folder / ".secret").write_text("hidden")
    (folder / ".git").mkdir()
    (folder / ".git" / "config").write_text("hidden")
    skill_set = discover_skills(home, project)

    result = run_load_skill(skill_set, "deploy", project)

    assert not result.is_error
    resolved = folder.resolve()
    assert result.text == (
        f"Skill deploy (folder: {resolved})\n"
        "\n"
        "Run `make deploy`. See checklist.md.\n"
        "\n"
        f"Other files of this skill; read one with Read at {resolved}/<file>:\n"
        "- checklist.md\n"
        "- templates/notes.md"
    )
    assert "name: deploy" not in result.text
    assert resolved in skill_set.folders()


def test_symlinked_skill_folder_is_allowed_by_its_real_path(home: Path, project: Path, tmp_path: Path) -> None:
    # Users often symlink a shared skills checkout; read_file compares real paths, so expose those.
    real = write_skill(tmp_path / "shared-skills", "linked").parent
    (real / "template.md").write_text("t")
    user_skills(home).mkdir(parents=True)
    (user_skills(home) / "linked").symlink_to(real, target_is_directory=True)
    skill_set = discover_skills(home, project)
    assert skill_set.names() == ["linked"]
    assert skill_set.folders() == [real.resolve()]
    text = run_load_skill(skill_set, "linked", project).text
    assert f"Read at {real.resolve()}/<file>:\n- template.md" in text


def test_load_skill_tool_shape(home: Path, project: Path) -> None:
    t = load_skill_tool(discover_skills(home, project))
    spec = t.spec()
    assert spec["name"] == "load_skill" and t.permission is Permission.READ and t.key_arg == "name"
    assert spec["input_schema"]["required"] == ["name"]
    assert "Read" in spec["description"]


def test_load_skill_caps_the_file_list(home: Path, project: Path) -> None:
    folder = write_skill(user_skills(home), "many").parent
    for i in range(MAX_LISTED_FILES + 10):
        (folder / f"f{i:03d}.txt").write_text("x")
    text = run_load_skill(discover_skills(home, project), "many", project).text
    listed = [line for line in text.splitlines() if line.startswith("- ")]
    assert len(listed) == MAX_LISTED_FILES and listed[0] == "- f000.txt"
    assert text.endswith(f"(only the first {MAX_LISTED_FILES} files are listed)")


def test_load_skill_without_other_files_has_no_file_section(home: Path, project: Path) -> None:
    write_skill(user_skills(home), "solo")
    text = run_load_skill(discover_skills(home, project), "solo", project).text
    assert text.endswith("Do it well.") and "read_file" not in text


def test_load_skill_unknown_name_lists_available_skills(home: Path, project: Path) -> None:
    write_skill(user_skills(home), "beta")
    write_skill(project_skills(project), "alpha")
    result = run_load_skill(discover_skills(home, project), "gamma", project)
    assert result.is_error
    assert result.text == "Unknown skill: gamma. Available skills: alpha, beta"


def test_load_skill_unknown_name_with_no_skills(home: Path, project: Path) -> None:
    result = run_load_skill(discover_skills(home, project), "anything", project)
    assert result.is_error and result.text == "Unknown skill: anything. No skills are installed"


def test_load_skill_of_a_deleted_file_is_an_error_result(home: Path, project: Path) -> None:
    path = write_skill(user_skills(home), "gone")
    skill_set = discover_skills(home, project)
    path.unlink()
    result = run_load_skill(skill_set, "gone", project)
    assert result.is_error and result.text.startswith("Cannot load skill gone from ")


# ---- /skills texts ---------------------------------------------------------------------------------------


def test_format_skill_list_shows_name_source_description_and_skipped(home: Path, project: Path) -> None:
    write_skill(user_skills(home), "release-checklist", description="Cut a release.")
    write_skill(project_skills(project), "db", description="Migrations.")
    bad = write_skill(project_skills(project), "bad", "no front matter")
    text = format_skill_list(discover_skills(home, project))
    assert text.splitlines() == [
        "db                 project  Migrations.",
        "release-checklist  user     Cut a release.",
        "",
        f"Skipped skill {bad}: no YAML front matter (the file must start with a '---' line)",
    ]


def test_format_skill_list_when_empty_says_where_to_put_one(home: Path, project: Path) -> None:
    text = format_skill_list(discover_skills(home, project))
    assert text.startswith(f"No skills found. Put one in {project_skills(project)}/<name>/SKILL.md")
    assert f"{user_skills(home)}/<name>/SKILL.md" in text


def test_format_skill_shows_header_and_body(home: Path, project: Path) -> None:
    path = write_skill(user_skills(home), "show-me", description="Shows.", body="Line one.\n")
    skill = discover_skills(home, project).get("show-me")
    assert skill is not None
    assert format_skill(skill) == f"show-me (user skill)\n{path}\nShows.\n\nLine one."


# ---- the shipped example ---------------------------------------------------------------------------------


def test_shipped_example_skill_is_valid_and_its_files_are_referenced(tmp_path: Path) -> None:
    example_home = REPO / ".cat-code.example"  # its skills/ folder has the layout of a user skills folder
    result = discover_skills(example_home, tmp_path)
    assert result.warnings == []
    assert len(result.skills) == 1
    skill = result.skills[0]
    body = skill.body()
    assert len(body) > 500
    others = [p for p in skill.folder.rglob("*") if p.is_file() and p.name != "SKILL.md"]
    assert others, "the example must ship a supporting file"
    for other in others:
        assert other.relative_to(skill.folder).as_posix() in body  # the instructions point to each file
    text = run_load_skill(result, skill.name, tmp_path).text
    assert all(f"- {p.relative_to(skill.folder).as_posix()}" in text for p in others)
