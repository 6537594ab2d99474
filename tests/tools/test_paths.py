"""resolve_path: what tools may touch, symlinks and traversal included."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catcode.errors import ToolError
from catcode.tools.base import ToolContext
from catcode.tools.paths import display_path, resolve_path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("print('hi')\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("secret\n")
    return root


@pytest.fixture
def ctx(project: Path) -> ToolContext:
    return ToolContext(project_root=project)


def test_relative_path_resolves_inside_the_project(ctx: ToolContext, project: Path) -> None:
    assert resolve_path("src/main.py", ctx, write=False) == project.resolve() / "src" / "main.py"


def test_absolute_path_inside_the_project_is_allowed(ctx: ToolContext, project: Path) -> None:
    assert resolve_path(str(project / "src" / "main.py"), ctx, write=True) == project.resolve() / "src" / "main.py"


def test_not_yet_existing_nested_file_is_allowed_for_writing(ctx: ToolContext, project: Path) -> None:
    assert resolve_path("new/deep/file.txt", ctx, write=True) == project.resolve() / "new" / "deep" / "file.txt"


@pytest.mark.parametrize("write", [False, True])
def test_absolute_path_outside_is_refused_with_a_hint(ctx: ToolContext, project: Path, write: bool) -> None:
    with pytest.raises(ToolError) as err:
        resolve_path("/etc/passwd", ctx, write=write)
    assert str(err.value) == (
        f"Refused: /etc/passwd is outside the project ({project.resolve()}). "
        "Add it to permissions.additional_dirs to allow it."
    )


@pytest.mark.parametrize("raw", ["../outside/secret.txt", "src/../../outside/secret.txt", "../../../../etc/passwd"])
def test_dot_dot_traversal_is_refused(ctx: ToolContext, raw: str) -> None:
    with pytest.raises(ToolError, match="outside the project"):
        resolve_path(raw, ctx, write=False)


def test_traversal_through_a_missing_directory_is_refused(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="outside the project"):
        resolve_path("missing/../../outside/new.txt", ctx, write=True)


def test_dot_dot_that_stays_inside_is_allowed(ctx: ToolContext, project: Path) -> None:
    assert resolve_path("src/../src/main.py", ctx, write=False) == project.resolve() / "src" / "main.py"


@pytest.mark.parametrize("write", [False, True])
def test_file_symlink_pointing_outside_is_refused(ctx: ToolContext, project: Path, tmp_path: Path, write: bool) -> None:
    (project / "link.txt").symlink_to(tmp_path / "outside" / "secret.txt")
    with pytest.raises(ToolError, match=r"secret\.txt is outside the project"):
        resolve_path("link.txt", ctx, write=write)


@pytest.mark.parametrize("name", ["secret.txt", "not-yet-there.txt"])
def test_directory_symlink_pointing_outside_is_refused(
    ctx: ToolContext, project: Path, tmp_path: Path, name: str
) -> None:
    (project / "escape").symlink_to(tmp_path / "outside", target_is_directory=True)
    with pytest.raises(ToolError, match="outside the project"):
        resolve_path(f"escape/{name}", ctx, write=True)


def test_dangling_symlink_pointing_outside_is_refused_for_writing(
    ctx: ToolContext, project: Path, tmp_path: Path
) -> None:
    (project / "dangling").symlink_to(tmp_path / "outside" / "created-by-a-write.txt")
    with pytest.raises(ToolError, match="outside the project"):
        resolve_path("dangling", ctx, write=True)


def test_symlink_within_the_project_resolves_to_its_target(ctx: ToolContext, project: Path) -> None:
    (project / "alias.py").symlink_to(project / "src" / "main.py")
    assert resolve_path("alias.py", ctx, write=True) == project.resolve() / "src" / "main.py"


def test_project_root_given_through_a_symlink_still_works(project: Path, tmp_path: Path) -> None:
    (tmp_path / "via-link").symlink_to(project, target_is_directory=True)
    ctx = ToolContext(project_root=tmp_path / "via-link")
    assert resolve_path("src/main.py", ctx, write=True) == project.resolve() / "src" / "main.py"


def test_allowed_dirs_are_readable_and_writable(project: Path, tmp_path: Path) -> None:
    ctx = ToolContext(project_root=project, allowed_dirs=[tmp_path / "outside"])
    secret = (tmp_path / "outside" / "secret.txt").resolve()
    assert resolve_path(str(secret), ctx, write=False) == secret
    assert resolve_path(str(secret), ctx, write=True) == secret


def test_read_only_dirs_are_readable_but_not_writable(project: Path, tmp_path: Path) -> None:
    ctx = ToolContext(project_root=project, read_only_dirs=[tmp_path / "outside"])
    secret = (tmp_path / "outside" / "secret.txt").resolve()
    assert resolve_path(str(secret), ctx, write=False) == secret
    with pytest.raises(ToolError, match="read-only directory"):
        resolve_path(str(secret), ctx, write=True)


def test_a_sibling_with_the_same_prefix_is_not_inside(project: Path, tmp_path: Path) -> None:
    (tmp_path / "project-other").mkdir()
    with pytest.raises(ToolError, match="outside the project"):
        resolve_path(str(tmp_path / "project-other" / "x"), ToolContext(project_root=project), write=False)


@pytest.mark.parametrize("raw", ["", "   ", "a\0b"])
def test_empty_or_nul_paths_are_refused(ctx: ToolContext, raw: str) -> None:
    with pytest.raises(ToolError, match="Refused"):
        resolve_path(raw, ctx, write=False)


def test_display_path_is_relative_inside_and_absolute_outside(ctx: ToolContext, project: Path) -> None:
    assert display_path(project.resolve() / "src" / "main.py", ctx) == "src/main.py"
    assert display_path(project.resolve(), ctx) == "."
    assert display_path(Path("/etc/passwd"), ctx) == "/etc/passwd"


@pytest.fixture(scope="module")
def fixed_ctx(tmp_path_factory: pytest.TempPathFactory) -> ToolContext:
    root = tmp_path_factory.mktemp("prop") / "project"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "up").symlink_to("../..", target_is_directory=True)
    return ToolContext(project_root=root)


@given(st.lists(st.sampled_from(["..", ".", "a", "b", "up", "x", "/"]), min_size=1, max_size=8))
def test_a_resolved_path_is_never_outside_the_project(fixed_ctx: ToolContext, parts: list[str]) -> None:
    raw = "/".join(parts)
    root = fixed_ctx.project_root.resolve()
    try:
        resolved = resolve_path(raw, fixed_ctx, write=True)
    except ToolError:
        return
    assert resolved == root or resolved.is_relative_to(root)
    assert os.path.realpath(resolved) == str(resolved)
