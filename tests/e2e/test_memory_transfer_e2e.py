"""Issue 24 §4 on a terminal: ``catcode memory import claude`` shows a clash with both texts and merges it when the
person says so, asks before writing, and lists the CLAUDE.md sections to choose from."""

from __future__ import annotations

import pexpect

from catcode.memory.transfer.locate import claude_project_slug
from tests.e2e.conftest import Catcode


def test_import_asks_about_a_clash_and_merges(spawn_catcode, project, home_dir) -> None:
    folder = home_dir / ".claude" / "projects" / claude_project_slug(project) / "memory"
    folder.mkdir(parents=True)
    (folder / "style.md").write_text("---\nname: style\ndescription: style\ntype: feedback\n---\n\nBritish spelling.\n")
    (folder / "MEMORY.md").write_text("# Memory Index\n\n- [style](style.md) — style\n")
    (home_dir / ".claude" / "CLAUDE.md").write_text("## Tone\nDry humour is fine.\n")
    first: Catcode = spawn_catcode("memory", "import", "claude", "--yes", "--claude-md", "none")
    first.expect_text("style (feedback) would be a memory for all projects")  # asked: a terminal is there
    first.expect_text("Save it for all projects?")
    first.send("y\r")
    first.child.expect(pexpect.EOF)
    (folder / "style.md").write_text("---\nname: style\ndescription: style\ntype: feedback\n---\n\nShort answers.\n")
    cat: Catcode = spawn_catcode("memory", "import", "claude")
    cat.expect_text("CLAUDE.md section 1: Tone")
    cat.expect_text("Import which CLAUDE.md sections?")
    cat.send("1\r")
    cat.expect_text("style exists already with another text.")
    cat.expect_text("British spelling.")
    cat.expect_text("Short answers.")
    cat.expect_text("[m]erge the texts, [r]ename the imported one, or [s]kip it?")
    cat.send("m\r")
    cat.expect_text("Replaces the all-projects memory style")
    cat.expect_text("Save it for all projects?")
    cat.send("a\r")  # this one and the rest
    cat.expect_text("~ style (feedback, all projects) — the imported text is added to it")
    cat.expect_text("+ tone (feedback, all projects) — Dry humour is fine.")  # what it holds, not its heading
    cat.expect_text("Import 2 memories?")
    cat.send("y\r")
    cat.expect_text("Imported 2 memories from claude. Undo with `catcode memory revert")
    cat.child.expect(pexpect.EOF)
    shown: Catcode = spawn_catcode("memory", "show", "style")
    shown.expect_text("British spelling.")
    shown.expect_text("Short answers.")
