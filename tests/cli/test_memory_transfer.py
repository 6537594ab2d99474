"""Issue 24 §4: ``catcode memory import claude|codex|gemini|PATH`` from sample folders in each tool's documented
layout (their env overrides included), one commit per import through the one write path, clashes shown and merged
or renamed (never replaced), ``--dry-run``; ``catcode memory export --format claude|agents-md`` and the round trip
into a fresh home."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog
from typer.testing import CliRunner

from catcode.cli.typer_app import app
from catcode.memory.builder import build_memory_runtime
from catcode.memory.runtime import MemoryRuntime
from catcode.memory.store.models import MemoryEntry, MemoryType
from catcode.memory.transfer.locate import claude_project_slug
from catcode.safety.trusted_settings import load_settings
from catcode.settings.config import catcode_home, resolve_paths

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
SECRET = "sk-ant-api03-" + "A" * 93 + "-AAAAAAAA"


@pytest.fixture(autouse=True)
def _keep_logging() -> Iterator[None]:
    saved, handlers = structlog.get_config(), logging.getLogger().handlers[:]
    yield
    structlog.configure(**saved)
    for handler in logging.getLogger().handlers:
        if handler not in handlers:
            handler.close()
    logging.getLogger().handlers[:] = handlers


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "shop-api"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    monkeypatch.setenv("CATCODE_USER_ID", "tester")
    for name in ("CLAUDE_CONFIG_DIR", "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "CODEX_HOME", "GEMINI_CLI_HOME"):
        monkeypatch.delenv(name, raising=False)
    return root


@pytest.fixture
def all_projects_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Memories for all projects imported without a terminal: the person's mode lets writes through."""
    monkeypatch.setenv("CATCODE_PERMISSION_MODE", "accept-edits")


def runtime(project: Path) -> MemoryRuntime:
    home = catcode_home()
    settings = load_settings(home, project, dict(os.environ), {})
    return build_memory_runtime(settings, resolve_paths(settings, home, project))


def cli(*args: str, stdin: str | None = None):
    return CliRunner().invoke(app, ["memory", *args], input=stdin)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def claude_memory(project: Path, base: Path | None = None) -> Path:
    """Claude Code's auto-memory folder of ``project``, with an index, three memory files and a note in the index."""
    folder = (base or Path(os.environ["HOME"]) / ".claude") / "projects" / claude_project_slug(project) / "memory"
    write(folder / "MEMORY.md", (
        "# Memory Index\n\n"
        "- [Prefers pnpm](prefers-pnpm.md) — use pnpm, not npm\n"
        "- [Deploy checklist](deploy-checklist.md) — staging before prod\n"
        "- [Grafana board](grafana-board.md) — latency dashboard\n\n"
        "## Build\n- run make build before the tests\n"
    ))  # fmt: skip
    write(folder / "prefers-pnpm.md", (
        "---\nname: Prefers pnpm\ndescription: use pnpm, not npm\ntype: feedback\n---\n\n"
        f"Always use pnpm, never npm. Why: the lockfile is pnpm's. Token {SECRET}\n"
    ))  # fmt: skip
    write(folder / "deploy-checklist.md", (
        "---\nname: deploy checklist\ndescription: staging before prod\ntype: project\n---\n\n"
        "Deploy to staging first, then prod after the smoke tests.\n"
    ))  # fmt: skip
    write(folder / "grafana-board.md", (
        "---\nname: grafana-board\ndescription: latency dashboard\ntype: reference\n---\n\n"
        "Latency lives at https://grafana.example.com/d/api-latency\n"
    ))  # fmt: skip
    return folder


def memories(project: Path) -> dict[str, tuple[str, str, str]]:
    return {e.name: (e.type.value, e.description, e.content) for e in runtime(project).store.load_all()}


def git_log(project: Path) -> list[str]:
    memory = runtime(project)
    command = ["git", "-C", str(memory.paths.memory_root), "log", "--format=%s"]
    out = subprocess.run(command, capture_output=True, text=True)
    return out.stdout.splitlines()


def test_claude_auto_memory_imports_as_one_commit_redacted_and_revertible(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude_memory(project)
    held = cli("import", "claude", "--yes")  # no terminal: the memory for all projects waits for consent
    assert held.exit_code == 0, held.output
    assert "- prefers-pnpm (feedback, all projects) — held back: saving a memory for all projects asks" in held.stdout
    assert "Held back 1 memories for all projects (prefers-pnpm)" in held.stderr
    assert "memory_write(prefers-pnpm) in permissions.allow of" in held.stderr
    assert "Imported 3 memories from claude." in held.stdout and "prefers-pnpm" not in memories(project)
    assert cli("revert").exit_code == 0
    monkeypatch.setenv("CATCODE_PERMISSION_MODE", "accept-edits")
    result = cli("import", "claude", "--yes")
    assert result.exit_code == 0, result.output
    assert "+ prefers-pnpm (feedback, all projects) — use pnpm, not npm" in result.stdout
    assert "+ deploy-checklist (project, this project) — staging before prod" in result.stdout
    assert "+ grafana-board (reference, this project) — latency dashboard" in result.stdout
    assert "+ build (project, this project) — run make build before the tests" in result.stdout
    assert "Imported 4 memories from claude. Undo with `catcode memory revert" in result.stdout
    assert "1 secret(s) were redacted" in result.stdout
    found = memories(project)
    assert set(found) == {"prefers-pnpm", "deploy-checklist", "grafana-board", "build"}
    assert SECRET not in found["prefers-pnpm"][2] and "[REDACTED" in found["prefers-pnpm"][2]
    assert found["build"][2] == "- run make build before the tests"
    assert git_log(project)[0].startswith("import: claude, 4 memories: add ")
    reverted = cli("revert")
    assert reverted.exit_code == 0, reverted.output
    assert memories(project) == {}


def test_an_imported_memory_is_described_by_what_it_holds_not_by_its_heading(
    project: Path, all_projects_allowed: None
) -> None:
    folder = claude_memory(project)
    write(folder / "git.md", "---\nname: git\ntype: feedback\n---\n\n# Git\n\nNever force-push to main. Rebase.\n")
    write(folder / "heading-only.md", "# Release train\n")
    result = cli("import", "claude", "--yes")
    assert result.exit_code == 0, result.output
    found = memories(project)
    assert found["git"][1] == "Never force-push to main."  # the index shows this line, not "Git"
    assert found["heading-only"][1] == "Release train"  # nothing else to go by


def test_claude_config_dir_and_auto_memory_directory_are_honoured(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    claude_memory(project, base=config)
    assert "4 memories" in cli("import", "claude", "--dry-run").stdout
    elsewhere = tmp_path / "notes"
    write(elsewhere / "only.md", "---\nname: only\ndescription: the only one\ntype: user\n---\nI use fish.\n")
    write(config / "settings.json", json.dumps({"autoMemoryDirectory": str(elsewhere)}))
    result = cli("import", "claude", "--dry-run")
    assert f"From claude ({elsewhere}):" in result.stdout and "+ only (user, all projects)" in result.stdout


def test_claude_md_sections_are_imported_only_when_chosen(project: Path, all_projects_allowed: None) -> None:
    write(Path(os.environ["HOME"]) / ".claude" / "CLAUDE.md", "# Me\n\n## Style\nShort answers, British spelling.\n")
    project_md = "# shop-api\n\n## Commands\nmake test runs everything.\n\n## Layout\nsrc/ and tests/\n"
    write(project / "CLAUDE.md", project_md)
    listed = cli("import", "claude", "--dry-run")
    assert "CLAUDE.md section 1: Style" in listed.stdout and "CLAUDE.md section 3: Layout" in listed.stdout
    assert "Nothing to import." in listed.stdout and "--claude-md 1,3" in listed.stdout
    result = cli("import", "claude", "--yes", "--claude-md", "1,2")
    assert result.exit_code == 0, result.output
    found = memories(project)
    assert found["style"] == ("feedback", "Short answers, British spelling.", "Short answers, British spelling.")
    assert found["commands"][0] == "project" and "layout" not in found
    bad = cli("import", "claude", "--yes", "--claude-md", "9")
    assert bad.exit_code == 1 and bad.stderr == "catcode: --claude-md: there is no CLAUDE.md section 9 (1 to 3)\n"


CODEX_HANDBOOK = """---
rollout_summary_files:
  - 2026-11-02-flaky-ci.md (success, cwd={project}, updated_at=2026-11-02T10:30:00Z)
description: Fixing the flaky CI job of this API
keywords: pytest, ci, retries
---

- The integration tests need the postgres service; start it with make db.
- Flaky test_orders: it depends on the clock; freeze it.

---
rollout_summary_files:
  - 2026-10-01-blog.md (success, cwd=/home/someone/blog, updated_at=2026-10-01T08:00:00Z)
description: Blog theme tweaks
keywords: hugo
---

- The blog uses hugo extended.
"""
CODEX_SUMMARY = """v1
## User Profile
Backend developer who likes small diffs and asks for tests first.

## General Tips
- Run the narrowest test first.

## What's in Memory
- ci: pytest, retries
  - desc: flaky CI fixes
"""


def test_codex_memories_follow_codex_home(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, all_projects_allowed: None
) -> None:
    codex = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(codex))
    write(codex / "memories" / "MEMORY.md", CODEX_HANDBOOK.format(project=project.resolve()))
    write(codex / "memories" / "memory_summary.md", CODEX_SUMMARY)
    result = cli("import", "codex", "--yes")
    assert result.exit_code == 0, result.output
    assert "about another folder (/home/someone/blog); import it there" in result.stdout
    assert "an index of MEMORY.md" in result.stdout
    found = memories(project)
    assert found["fixing-the-flaky-ci-job-of"][0] == "project"
    assert "freeze it" in found["fixing-the-flaky-ci-job-of"][2]
    assert found["codex-user-profile"][0] == "user" and found["codex-general-tips"][0] == "feedback"
    assert len(found) == 3 and git_log(project)[0].startswith("import: codex, 3 memories")


def test_codex_free_form_handbook_is_one_memory_per_bullet(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "someone"))
    write(tmp_path / "someone" / ".codex" / "memories" / "MEMORY.md", (
        "# Memory\n\n- Prefers uv over pip for Python projects.\n- shop-api tests need docker running.\n"
    ))  # fmt: skip
    result = cli("import", "codex", "--dry-run")
    assert result.exit_code == 0, result.output
    assert "+ prefers-uv-over-pip-for-python (user, all projects)" in result.stdout
    assert "+ shop-api-tests-need-docker-running (project, this project)" in result.stdout
    assert "Would import 2 memories." in result.stdout


def test_gemini_added_memories_follow_gemini_cli_home(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, all_projects_allowed: None
) -> None:
    gemini = tmp_path / "gemini-home"
    monkeypatch.setenv("GEMINI_CLI_HOME", str(gemini))
    write(gemini / ".gemini" / "settings.json", '{"context": {"fileName": ["AGENT_NOTES.md", "GEMINI.md"]}}')
    write(gemini / ".gemini" / "AGENT_NOTES.md", (
        "# My notes\n\nBe nice.\n\n## Gemini Added Memories\n"
        "- My preferred language is Python.\n- The shop-api service listens on port 8081.\n"
    ))  # fmt: skip
    result = cli("import", "gemini", "--yes")
    assert result.exit_code == 0, result.output
    found = memories(project)
    assert found["my-preferred-language-is-python"][0] == "user"
    assert found["the-shop-api-service-listens-on"] == (
        "project",
        "The shop-api service listens on port 8081.",
        "The shop-api service listens on port 8081.",
    )
    assert len(found) == 2


def test_clashes_are_shown_and_never_silently_replaced(project: Path, all_projects_allowed: None) -> None:
    memory = runtime(project)
    mine = MemoryEntry(name="prefers-pnpm", description="pnpm", type=MemoryType.FEEDBACK, content="Use pnpm 9.")
    same = MemoryEntry(
        name="deploy-checklist", description="staging before prod", type=MemoryType.PROJECT,
        content="Deploy to staging first, then prod after the smoke tests.",
    )  # fmt: skip
    memory.store.update(mine, why="save")
    memory.store.update(same, why="save")
    claude_memory(project)
    before = git_log(project)
    refused = cli("import", "claude")
    assert refused.exit_code == 1
    assert "prefers-pnpm exists already with another text." in refused.stdout
    assert "catcode has (feedback):\n    Use pnpm 9." in refused.stdout and "claude brings (" in refused.stdout
    assert "run it on a terminal to merge or rename each, or pass --yes" in refused.stderr
    assert git_log(project) == before
    result = cli("import", "claude", "--yes")
    assert result.exit_code == 0, result.output
    assert "= deploy-checklist — already there, unchanged" in result.stdout
    assert "+ prefers-pnpm-claude (feedback, all projects) — use pnpm, not npm [renamed: Prefers pnpm is taken]" in (
        result.stdout
    )
    found = memories(project)
    assert found["prefers-pnpm"][2] == "Use pnpm 9."  # the existing memory is untouched
    assert found["prefers-pnpm-claude"][2].startswith("Always use pnpm")
    assert "Imported 3 memories" in result.stdout


def test_merge_adds_the_imported_text(project: Path) -> None:
    from catcode.memory.transfer.items import ImportItem
    from catcode.memory.transfer.plan import apply_plan, make_plan

    memory = runtime(project)
    memory.store.update(
        MemoryEntry(name="style", description="style", type=MemoryType.FEEDBACK, content="Short answers."), why="save"
    )
    item = ImportItem("Style", "style", MemoryType.FEEDBACK, "British spelling.", "CLAUDE.md")
    plan = make_plan(memory.store, "claude", [item], [], lambda step: "merge")
    assert plan.lines() == ["~ style (feedback, all projects) — the imported text is added to it"]
    counts = apply_plan(memory.store, plan)
    assert counts.updated_names == ["style"]
    assert memory.store.get("style").content == "Short answers.\n\nBritish spelling."


def test_dry_run_writes_nothing(project: Path) -> None:
    claude_memory(project)
    result = cli("import", "claude", "--dry-run")
    assert result.exit_code == 0
    assert "Would import 4 memories. Nothing written (--dry-run)." in result.stdout
    assert memories(project) == {} and git_log(project) == []


def test_unknown_source_is_one_line(project: Path) -> None:
    result = cli("import", "nowhere/at/all", "--yes")
    assert result.exit_code == 1
    assert result.stderr == "catcode: No such file or folder: nowhere/at/all (give claude, codex, gemini or a path)\n"
    missing = cli("import", "codex", "--yes")
    assert missing.exit_code == 1 and "No Codex memories:" in missing.stderr and "(CODEX_HOME)" in missing.stderr


def seed(project: Path) -> dict[str, tuple[str, str, str]]:
    memory = runtime(project)
    entries = [
        MemoryEntry(name="user-prefers-vim", description="用户偏好 vim 编辑器", type=MemoryType.USER, content="vim"),
        MemoryEntry(name="review-style", description="small PRs", type=MemoryType.FEEDBACK,
                    content="Keep PRs small.\n\n## Why\nReviews go faster.\n\n```\ncode ## not a heading\n```"),
        MemoryEntry(name="api-runbook", description="on-call runbook", type=MemoryType.REFERENCE,
                    content="See https://runbooks.example.com/api"),
        MemoryEntry(name="orders-service", description="orders", type=MemoryType.PROJECT, content="Uses Kafka."),
    ]  # fmt: skip
    for entry in entries:
        memory.store.update(entry, why="save")
    return memories(project)


def fresh_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    home = tmp_path / name
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CATCODE_HOME", str(home / ".cat-code"))


@pytest.mark.parametrize("format_", ["claude", "agents-md"])
def test_export_then_import_into_a_fresh_home_gives_the_same_memories(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, format_: str, all_projects_allowed: None
) -> None:
    before = seed(project)
    out = tmp_path / ("exported" if format_ == "claude" else "AGENTS.md")
    if format_ == "agents-md":
        write(out, "# Agents\n\nRun make test.\n\n## Style\nBe brief.\n")
    result = cli("export", "--format", format_, "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "Wrote 4 memories" in result.stdout
    if format_ == "agents-md":
        text = out.read_text()
        assert text.startswith("# Agents\n\nRun make test.\n\n## Style\nBe brief.\n\n## Memories (catcode)")
        again = cli("export", "--format", format_, "--out", str(out))  # replaces its section, keeps the rest
        assert again.exit_code == 0 and out.read_text() == text
    else:
        index = (out / "MEMORY.md").read_text()
        assert index.startswith("# Memory Index\n\n- [api-runbook](api-runbook.md) — on-call runbook\n")
        assert oct((out / "review-style.md").stat().st_mode & 0o777) == "0o600"
    fresh_home(tmp_path, monkeypatch, "fresh")
    assert memories(project) == {}
    imported = cli("import", str(out), "--yes")
    assert imported.exit_code == 0, imported.output
    assert memories(project) == before


def test_export_to_claude_codes_own_folder_by_default(project: Path) -> None:
    seed(project)
    result = cli("export", "--format", "claude")
    folder = Path(os.environ["HOME"]) / ".claude" / "projects" / claude_project_slug(project) / "memory"
    assert result.exit_code == 0 and str(folder) in result.stdout
    text = (folder / "orders-service.md").read_text()
    assert text == "---\nname: orders-service\ndescription: orders\ntype: project\n---\n\nUses Kafka.\n"
    (folder / "orders-service.md").write_text("edited in Claude Code\n")
    again = cli("export", "--format", "claude")
    assert "Left alone (another text there; --force overwrites): orders-service" in again.stderr
    assert (folder / "orders-service.md").read_text() == "edited in Claude Code\n"
    assert cli("export", "--format", "claude", "--force").exit_code == 0
    assert (folder / "orders-service.md").read_text() == text


def test_export_with_nothing_and_a_bad_format(project: Path) -> None:
    assert cli("export", "--format", "claude").stdout == "No memories to export.\n"
    bad = cli("export", "--format", "yaml")
    assert bad.exit_code == 1 and bad.stderr == "catcode: --format: unknown format 'yaml' (choose: claude, agents-md)\n"


def test_a_markdown_file_over_a_megabyte_is_read_whole_and_a_cut_is_said(tmp_path: Path) -> None:
    """10,000 sections (1.3 MB) are 10,000 memories; a file over the cap of one file is cut at a line and one line
    of the plan says how much was not read."""
    from catcode.memory.transfer import readers

    notes = tmp_path / "notes.md"
    notes.write_text("".join(f"## Note {n}\n\n{'Keep the build green. ' * 5}({n})\n\n" for n in range(10_000)))
    assert notes.stat().st_size > 1_000_000
    items, skipped = readers.read_file(notes, tmp_path)
    assert len(items) == 10_000 and skipped == []

    cut: list[readers.Skipped] = []
    text = readers._text(notes, skipped=cut, cap=1_000)
    assert text.endswith("\n") and len(text) <= 1_000
    assert len(cut) == 1 and "bytes after them were not" in cut[0].reason
    assert f"{notes.stat().st_size - len(text.encode()):,} bytes after them" in cut[0].reason
