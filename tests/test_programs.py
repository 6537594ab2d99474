"""``catcode.programs``: the programs catcode runs for itself are found only where neither the project nor a fenced
command can write (issue 32 §3)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from catcode import programs


def _program(folder: Path, name: str = "tool") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(programs, "_distrusted", set())  # what this test distrusts stays in this test
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    monkeypatch.chdir(root / "src")  # a session started in a subfolder: the project is the git root
    return root


def test_the_projects_folders_and_relative_entries_are_passed_over(project: Path, tmp_path: Path) -> None:
    planted = _program(project / ".venv" / "bin")
    _program(project / "src" / "bin")
    system = _program(tmp_path / "system")
    path = os.pathsep.join(["bin", str(planted.parent), str(system.parent)])
    found = programs.lookup("tool", path)
    assert found.path == str(system)
    assert [why.split(",")[0] for _, why in found.skipped] == ["a relative PATH entry", f"inside {project}"]
    assert found.describe().startswith(f"tool {system} (not bin/tool: a relative PATH entry; not {planted}: inside")


def test_distrusted_folders_links_into_them_and_folders_anyone_may_write(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"  # sandbox.writable: [~/.cache]
    _program(cache / "bin")
    programs.distrust(cache)
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "tool").symlink_to(_program(project / "tools"))
    shared = tmp_path / "shared"
    _program(shared)
    shared.chmod(0o777)
    path = os.pathsep.join([str(cache / "bin"), str(linked), str(shared)])
    found = programs.lookup("tool", path)
    assert found.path is None
    reasons = [why for _, why in found.skipped]
    assert reasons[0].startswith(f"inside {cache}") and reasons[1].startswith(f"a link into {project}")
    assert reasons[2] == f"{shared} is writable by everyone"


def test_require_raises_as_running_a_missing_program_would(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(project / ".venv" / "bin"))
    _program(project / ".venv" / "bin", "git")
    with pytest.raises(FileNotFoundError, match="git not found in a folder the project cannot write"):
        programs.require("git")
    assert programs.shell() == "/bin/sh"
    assert programs.lookup("/bin/sh").path == "/bin/sh"  # a path is taken as it is
