"""list_files and grep: glob semantics, .git and git-ignored files skipped, caps and errors."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from catcode.tools.base import Tool, ToolContext, ToolRegistry, ToolResult
from catcode.tools.search import glob_regex, grep, list_files


def run(t: Tool, ctx: ToolContext, **kwargs: Any) -> ToolResult:
    if t is grep:
        kwargs.setdefault("output_mode", "content")  # the matching lines (Grep lists the files by default)
    return ToolRegistry([t]).execute(t, t.parse(kwargs), ctx)


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


@pytest.fixture(autouse=True)
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # git reads ~/.gitconfig; keep the real one out of the tests.
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


@pytest.fixture
def repo(tmp_path: Path) -> ToolContext:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    write(
        root,
        {
            ".gitignore": "ignored.txt\nbuild/\n",
            "README.md": "# Demo\nTODO: write docs\n",
            "src/app.py": "import os\n\ndef main():\n    return 'Hello'\n",
            "src/util.txt": "hello world\n",
            "src/logo.png": b"\x89PNG\0\0hello",
            "ignored.txt": "hello from an ignored file\n",
            "build/out.py": "hello = 'generated'\n",
        },
    )
    return ToolContext(project_root=root)


@pytest.fixture
def plain(tmp_path: Path) -> ToolContext:
    root = tmp_path / "plain"
    write(
        root,
        {
            "main.py": "hello\n",
            "lib/mod.py": "hello\n",
            "node_modules/dep/index.js": "hello\n",
            "__pycache__/main.cpython-311.pyc": "hello\n",
            ".venv/bin/python": "hello\n",
            ".git/config": "hello\n",
        },
    )
    return ToolContext(project_root=root)


# --- list_files --------------------------------------------------------------------------------------------


def test_list_files_in_a_git_repo_skips_git_and_ignored_files(repo: ToolContext) -> None:
    result = run(list_files, repo)
    assert not result.is_error
    assert result.text.splitlines() == [".gitignore", "README.md", "src/app.py", "src/logo.png", "src/util.txt"]


def test_list_files_outside_git_skips_bulky_directories(plain: ToolContext) -> None:
    assert run(list_files, plain).text.splitlines() == ["lib/mod.py", "main.py"]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("**/*.py", ["src/app.py"]),
        ("*.md", ["README.md"]),
        ("*.py", []),
        ("src/*.{py,txt}", ["src/app.py", "src/util.txt"]),
        ("src/???.py", ["src/app.py"]),
    ],
)
def test_list_files_glob_semantics(repo: ToolContext, pattern: str, expected: list[str]) -> None:
    text = run(list_files, repo, pattern=pattern).text
    if expected:
        assert text.splitlines() == expected
    else:
        assert text == f"No files match {pattern} under ."


def test_list_files_under_a_subdirectory_shows_project_relative_paths(repo: ToolContext) -> None:
    assert run(list_files, repo, pattern="*.py", path="src").text == "src/app.py"


def test_list_files_is_capped(tmp_path: Path) -> None:
    root = tmp_path / "many"
    root.mkdir()
    for i in range(510):
        (root / f"f{i:03d}.txt").touch()
    lines = run(list_files, ToolContext(project_root=root)).text.splitlines()
    assert len(lines) == 501
    assert lines[0] == "f000.txt" and lines[499] == "f499.txt"
    assert lines[500].startswith("… 10 more")


def test_list_files_refuses_paths_outside_and_missing_dirs(repo: ToolContext) -> None:
    outside = run(list_files, repo, path="..")
    assert outside.is_error and "outside the project" in outside.text
    missing = run(list_files, repo, path="nowhere")
    assert missing.is_error and missing.text == "Directory not found: nowhere"


# --- grep --------------------------------------------------------------------------------------------------


def test_grep_finds_lines_and_skips_ignored_binary_and_git(repo: ToolContext) -> None:
    result = run(grep, repo, pattern="hello", ignore_case=True)
    assert not result.is_error
    assert result.text.splitlines() == ["src/app.py:4:     return 'Hello'", "src/util.txt:1: hello world"]


def test_grep_is_case_sensitive_by_default(repo: ToolContext) -> None:
    assert run(grep, repo, pattern="hello").text == "src/util.txt:1: hello world"


def test_grep_glob_without_slash_matches_names_at_any_depth(repo: ToolContext) -> None:
    assert run(grep, repo, pattern=r"^import\s", glob="*.py").text == "src/app.py:1: import os"
    assert run(grep, repo, pattern="hello", glob="src/*.txt").text == "src/util.txt:1: hello world"


def test_grep_in_a_non_git_directory_skips_bulky_directories(plain: ToolContext) -> None:
    assert run(grep, plain, pattern="hello").text.splitlines() == ["lib/mod.py:1: hello", "main.py:1: hello"]


def test_grep_a_single_file(repo: ToolContext) -> None:
    assert run(grep, repo, pattern="TODO", path="README.md").text == "README.md:2: TODO: write docs"


def test_grep_invalid_regex_is_an_error_with_the_reason(repo: ToolContext) -> None:
    result = run(grep, repo, pattern="foo(")
    assert result.is_error
    assert result.text.startswith("Invalid regular expression 'foo(': missing ), unterminated subpattern")


def test_grep_no_match_is_not_an_error(repo: ToolContext) -> None:
    result = run(grep, repo, pattern="zebra")
    assert not result.is_error and result.text == "No matches for 'zebra' under ."


def test_grep_caps_results_and_cuts_long_lines(tmp_path: Path) -> None:
    root = tmp_path / "big"
    write(root, {"a.txt": "".join(f"match {i}\n" for i in range(30)), "b.txt": "match " + "y" * 1000 + "\n"})
    ctx = ToolContext(project_root=root)
    lines = run(grep, ctx, pattern="match", max_results=5).text.splitlines()
    assert lines[:5] == [f"a.txt:{i + 1}: match {i}" for i in range(5)]
    assert lines[5].startswith("… stopped at 5;")
    exact = run(grep, ctx, pattern=r"match \d", max_results=30).text
    assert "stopped" not in exact
    long_line = run(grep, ctx, pattern="y+").text
    assert long_line.endswith(" …") and len(long_line) < 450


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("**/*", "a/b/c.py", True),
        ("**/*.py", "c.py", True),
        ("**/*.py", "a/b/c.py", True),
        ("*.py", "a/c.py", False),
        ("a/**", "a/b/c", True),
        ("a/*/c", "a/b/c", True),
        ("a/*/c", "a/b/x/c", False),
        ("[!a]*.txt", "b1.txt", True),
        ("[!a]*.txt", "a1.txt", False),
        ("*.{js,ts}", "x.ts", True),
        ("./src/*.py", "src/m.py", True),
        ("file(1).txt", "file(1).txt", True),
    ],
)
def test_glob_regex(pattern: str, path: str, matches: bool) -> None:
    assert bool(glob_regex(pattern).fullmatch(path)) is matches
    assert isinstance(glob_regex(pattern), re.Pattern)


def test_grep_lists_the_files_by_default_counts_and_reads_an_earlier_call(repo: ToolContext) -> None:
    from catcode.conversation.messages import ToolUseBlock
    from catcode.session.agent import own_call

    registry = ToolRegistry([grep])
    files = registry.execute(grep, grep.parse({"pattern": "hello", "-i": True}), repo)
    assert files.text.splitlines() == ["src/app.py", "src/util.txt"]
    counted = registry.execute(grep, grep.parse({"pattern": "o", "output_mode": "count", "type": "py"}), repo)
    assert counted.text.splitlines()[0].startswith("src/app.py:")
    earlier = own_call(registry, ToolUseBlock(id="t", name="grep", input={"pattern": "hello", "max_results": 5}))
    assert earlier.name == "Grep" and earlier.input["output_mode"] == "content"
    assert registry.execute(grep, grep.parse(earlier.input), repo).text == "src/util.txt:1: hello world"
