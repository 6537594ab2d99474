"""read_file, write_file, edit_file and their previews, run through the registry like the agent does."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest

from catcode.tools.base import Tool, ToolContext, ToolRegistry, ToolResult
from catcode.tools.files import edit_file, read_file, write_file


def run(t: Tool, ctx: ToolContext, **kwargs: Any) -> ToolResult:
    return ToolRegistry([t]).execute(t, t.parse(kwargs), ctx)


def preview(t: Tool, ctx: ToolContext, **kwargs: Any) -> str | None:
    assert t.preview is not None
    return t.preview(t.parse(kwargs), ctx)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "project"
    root.mkdir()
    return ToolContext(project_root=root)


@pytest.fixture
def root(ctx: ToolContext) -> Path:
    return ctx.project_root


# --- read_file ---------------------------------------------------------------------------------------------


def test_read_numbers_lines_like_cat_n(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text("alpha\n\tbeta\ngamma\n")
    result = run(read_file, ctx, path="a.txt")
    assert not result.is_error
    assert result.text == "     1\talpha\n     2\t\tbeta\n     3\tgamma"


def test_read_offset_and_limit_page_with_a_continue_note(ctx: ToolContext, root: Path) -> None:
    (root / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    result = run(read_file, ctx, path="n.txt", offset=3, limit=4)
    assert result.text.splitlines() == [
        "     3\tline 3",
        "     4\tline 4",
        "     5\tline 5",
        "     6\tline 6",
        "… 4 more lines; use offset=7 to continue",
    ]
    tail = run(read_file, ctx, path="n.txt", offset=7)
    assert tail.text.splitlines()[-1] == "    10\tline 10"
    assert "more line" not in tail.text


def test_read_offset_past_the_end_is_an_error(ctx: ToolContext, root: Path) -> None:
    (root / "short.txt").write_text("one\ntwo\n")
    result = run(read_file, ctx, path="short.txt", offset=5)
    assert result.is_error
    assert result.text == "short.txt has 2 lines; offset=5 is past the end."


def test_read_cuts_long_lines(ctx: ToolContext, root: Path) -> None:
    (root / "wide.txt").write_text("x" * 2500 + "\n")
    text = run(read_file, ctx, path="wide.txt").text
    assert text.startswith("     1\t" + "x" * 2000 + " …")
    assert "500 more characters cut" in text
    assert "x" * 2001 not in text


def test_read_refuses_binary_files(ctx: ToolContext, root: Path) -> None:
    (root / "blob.bin").write_bytes(b"\x89PNG\0\0\x01" + bytes(100))
    result = run(read_file, ctx, path="blob.bin")
    assert result.is_error
    assert result.text == "Refused: blob.bin is a binary file (107 bytes)"


def test_read_missing_file(ctx: ToolContext) -> None:
    result = run(read_file, ctx, path="nope/missing.py")
    assert result.is_error
    assert result.text == "File not found: nope/missing.py"


def test_read_directory_points_to_list_files(ctx: ToolContext, root: Path) -> None:
    (root / "pkg").mkdir()
    result = run(read_file, ctx, path="pkg")
    assert result.is_error
    assert "pkg is a directory" in result.text and "Glob" in result.text


def test_read_invalid_utf8_uses_replacement_characters(ctx: ToolContext, root: Path) -> None:
    (root / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    assert run(read_file, ctx, path="latin1.txt").text == "     1\tcaf\ufffd"


def test_read_empty_file_says_so(ctx: ToolContext, root: Path) -> None:
    (root / "empty.txt").touch()
    assert run(read_file, ctx, path="empty.txt").text == "empty.txt is empty."


def test_read_outside_the_project_is_refused(ctx: ToolContext) -> None:
    result = run(read_file, ctx, path="/etc/passwd")
    assert result.is_error
    assert result.text.startswith("Refused: /etc/passwd is outside the project")


# --- write_file --------------------------------------------------------------------------------------------


def test_write_creates_parents_and_reports_lines(ctx: ToolContext, root: Path) -> None:
    result = run(write_file, ctx, path="docs/guide/intro.md", content="# Intro\n\nHello\n")
    assert not result.is_error
    assert result.text == "Wrote 3 lines to docs/guide/intro.md (created)"
    assert (root / "docs" / "guide" / "intro.md").read_text() == "# Intro\n\nHello\n"
    assert stat.S_IMODE((root / "docs" / "guide" / "intro.md").stat().st_mode) == 0o644


def test_write_overwrites_and_keeps_the_mode(ctx: ToolContext, root: Path) -> None:
    script = root / "run.sh"
    script.write_text("echo old\n")
    script.chmod(0o755)
    assert run(write_file, ctx, path="run.sh", content="echo new").text == "Wrote 1 line to run.sh (updated)"
    assert script.read_text() == "echo new"
    assert stat.S_IMODE(script.stat().st_mode) == 0o755


def test_write_through_an_inner_symlink_updates_the_target(ctx: ToolContext, root: Path) -> None:
    (root / "real.txt").write_text("old\n")
    (root / "alias.txt").symlink_to("real.txt")
    run(write_file, ctx, path="alias.txt", content="new\n")
    assert (root / "alias.txt").is_symlink()
    assert (root / "real.txt").read_text() == "new\n"


def test_write_outside_is_refused_and_writes_nothing(ctx: ToolContext, tmp_path: Path) -> None:
    result = run(write_file, ctx, path="../escaped.txt", content="x")
    assert result.is_error and "outside the project" in result.text
    assert not (tmp_path / "escaped.txt").exists()


def test_write_to_a_directory_is_an_error(ctx: ToolContext, root: Path) -> None:
    (root / "pkg").mkdir()
    result = run(write_file, ctx, path="pkg", content="x")
    assert result.is_error and "is a directory" in result.text


# --- edit_file ---------------------------------------------------------------------------------------------


G_BEFORE, G_AFTER = "def g():\n    return 1", "def g():\n    return 2"


@pytest.fixture
def code(root: Path) -> Path:
    path = root / "app.py"
    path.write_text("def f():\n    return 1\n\n\ndef g():\n    return 1\n")
    return path


def test_edit_replaces_one_unique_match(ctx: ToolContext, code: Path) -> None:
    result = run(edit_file, ctx, path="app.py", old_string=G_BEFORE, new_string=G_AFTER)
    assert result.text == "Edited app.py: 1 replacement"
    assert code.read_text() == "def f():\n    return 1\n\n\ndef g():\n    return 2\n"


def test_edit_with_no_match_is_an_error_that_mentions_whitespace(ctx: ToolContext, code: Path) -> None:
    before = code.read_text()
    result = run(edit_file, ctx, path="app.py", old_string="  return 1\n  ", new_string="x")
    assert result.is_error
    assert result.text.startswith("old_string not found in app.py")
    assert "whitespace" in result.text and "indentation" in result.text
    assert code.read_text() == before


def test_edit_with_several_matches_is_ambiguous(ctx: ToolContext, code: Path) -> None:
    before = code.read_text()
    result = run(edit_file, ctx, path="app.py", old_string="return 1", new_string="return 3")
    assert result.is_error
    assert result.text == "old_string matches 2 times in app.py; add context to make it unique or set replace_all"
    assert code.read_text() == before


def test_edit_replace_all(ctx: ToolContext, code: Path) -> None:
    result = run(edit_file, ctx, path="app.py", old_string="return 1", new_string="return 3", replace_all=True)
    assert result.text == "Edited app.py: 2 replacements"
    assert code.read_text().count("return 3") == 2


def test_edit_identical_strings_is_an_error(ctx: ToolContext, code: Path) -> None:
    result = run(edit_file, ctx, path="app.py", old_string="def f", new_string="def f")
    assert result.is_error and "identical" in result.text


def test_edit_missing_file(ctx: ToolContext) -> None:
    result = run(edit_file, ctx, path="ghost.py", old_string="a", new_string="b")
    assert result.is_error and result.text == "File not found: ghost.py"


def test_edit_keeps_undecodable_bytes_and_mode(ctx: ToolContext, root: Path) -> None:
    path = root / "mixed.txt"
    path.write_bytes(b"name = caf\xe9\nvalue = 1\n")
    path.chmod(0o600)
    run(edit_file, ctx, path="mixed.txt", old_string="value = 1", new_string="value = 2")
    assert path.read_bytes() == b"name = caf\xe9\nvalue = 2\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_edit_matches_lf_text_in_a_crlf_file(ctx: ToolContext, root: Path) -> None:
    path = root / "win.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    result = run(edit_file, ctx, path="win.txt", old_string="one\ntwo", new_string="1\n2")
    assert result.text == "Edited win.txt: 1 replacement"
    assert path.read_bytes() == b"1\r\n2\r\nthree\r\n"


# --- previews ----------------------------------------------------------------------------------------------


def test_write_preview_of_a_new_file_diffs_against_empty(ctx: ToolContext, root: Path) -> None:
    diff = preview(write_file, ctx, path="notes/new.txt", content="hello\nworld\n")
    assert diff is not None
    assert diff.splitlines() == ["--- /dev/null", "+++ b/notes/new.txt", "@@ -0,0 +1,2 @@", "+hello", "+world"]
    assert not (root / "notes").exists()


def test_write_preview_of_an_existing_file(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text("keep\nold\n")
    diff = preview(write_file, ctx, path="a.txt", content="keep\nnew")
    assert diff is not None
    lines = diff.splitlines()
    assert lines[:2] == ["--- a/a.txt", "+++ b/a.txt"]
    assert " keep" in lines and "-old" in lines and "+new" in lines
    assert "\\ No newline at end of file" in lines
    assert (root / "a.txt").read_text() == "keep\nold\n"


def test_edit_preview_shows_the_change_without_applying_it(ctx: ToolContext, code: Path) -> None:
    diff = preview(edit_file, ctx, path="app.py", old_string=G_BEFORE, new_string=G_AFTER)
    assert diff is not None
    assert diff.splitlines()[:2] == ["--- a/app.py", "+++ b/app.py"]
    assert "-    return 1" in diff.splitlines() and "+    return 2" in diff.splitlines()
    assert "return 2" not in code.read_text()


@pytest.mark.parametrize(
    ("t", "kwargs"),
    [
        (edit_file, {"path": "app.py", "old_string": "absent", "new_string": "x"}),
        (edit_file, {"path": "app.py", "old_string": "return 1", "new_string": "x"}),
        (edit_file, {"path": "../outside.py", "old_string": "a", "new_string": "b"}),
        (write_file, {"path": "/etc/passwd", "content": "x"}),
    ],
)
def test_preview_never_raises(ctx: ToolContext, code: Path, t: Tool, kwargs: dict[str, Any]) -> None:
    assert preview(t, ctx, **kwargs) is None
