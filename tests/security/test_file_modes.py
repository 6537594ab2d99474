"""Every file catcode creates is 0600 and every folder 0700, whatever the umask (issue 18, defect 3: at umask 000,
$CATCODE_HOME was 0777 and anyone could plant settings or skills). A real session — typing, memory capture at
exit, the journal, git, the fact index — runs in a pty under umask 000 and 022; what is wider from an older
version is tightened at the next start, with one notice."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import catcode_argv
from tests.e2e.test_memory_e2e import MEMORY_ON, VIM, MemoryModel, adds, candidates, capture_done, chat, ended
from tests.slowness import bound

# What the report listed, relative to $CATCODE_HOME; each must exist after the session and be private.
EXPECTED = [
    ".",
    "input-history",
    "logs",
    "logs/catcode.log",
    "memory",
    "memory/.git",
    "memory/.git/config",
    "memory/.gitignore",
    "memory/.write.lock",
    "memory/projects",
    "memory/users",
]


def modes(home: Path) -> dict[str, int]:
    """Every path under ``home`` (itself included) and its permission bits."""
    found = {".": stat.S_IMODE(os.lstat(home).st_mode)}
    for path in home.rglob("*"):
        found[path.relative_to(home).as_posix()] = stat.S_IMODE(os.lstat(path).st_mode)
    return found


def wider_than_private(home: Path, found: dict[str, int]) -> list[str]:
    """Paths whose mode is not exactly 0600/0700 (git's objects, the memory's and the checkpoints': not readable by
    group or others; git keeps them read-only, 0400)."""
    bad = []
    for rel, mode in found.items():
        path = home / rel
        if path.is_symlink():
            continue
        shadow = rel.startswith("checkpoints/") and "/git/objects/" in rel  # the checkpoints' shadow repository
        if ("/.git/objects/" in f"/{rel}/" or shadow) and not path.is_dir():
            ok = not mode & 0o077
        else:
            ok = mode == (0o700 if path.is_dir() else 0o600)
        if not ok:
            bad.append(f"{rel} {mode:o}")
    return bad


@pytest.mark.parametrize("umask", ["000", "022"])
def test_a_whole_session_creates_nothing_wider_than_private(
    umask: str, spawn_under_umask, fake_server, home_dir
) -> None:
    home = home_dir / ".cat-code"
    fake_server.responder = MemoryModel(extract=candidates(VIM), consolidate=adds(VIM))
    cat = spawn_under_umask(umask, env=MEMORY_ON)
    cat.prompt()
    chat(cat, fake_server, "use vim, never touch tests/", "Noted.")
    chat(cat, fake_server, "and keep answers short", "Understood.")
    running = modes(home)  # facts.db's -wal and -shm exist while the session holds the index open
    cat.send("\x04")
    assert ended(cat) == 0
    assert capture_done(home_dir)[0].startswith("Memory: 1 added")  # after the exit, under the same umask
    after = modes(home)

    project_scope = next(p for p in running if p.startswith("memory/projects/") and p.count("/") == 2)
    facts = f"{project_scope}/.recall/facts.db"  # in a folder of its own: its journal files leave the scope's be
    for rel in [*EXPECTED, f"{project_scope}/history.jsonl", f"{project_scope}/.recall", facts]:
        assert rel in after, f"{rel} was not created"
    assert {f"{facts}-wal", f"{facts}-shm"} <= running.keys()
    assert any(rel.startswith("input-history/") for rel in after)
    assert any("/journal/" in f"/{rel}/" for rel in after)  # the session summary's folder
    assert any(rel.endswith(".lock") and "memory/projects/" in rel for rel in after)
    assert wider_than_private(home, running) == []
    assert wider_than_private(home, after) == []


def test_wider_modes_left_by_an_older_version_are_tightened_at_start_with_one_notice(
    home_dir: Path, project: Path
) -> None:
    home = home_dir / ".cat-code"
    (home / "memory" / "users" / "abc").mkdir(parents=True)
    (home / "skills" / "deploy").mkdir(parents=True)
    for rel in ("settings.yaml", "skills/deploy/SKILL.md", "memory/users/abc/MEMORY.md", "memory/.gitignore"):
        (home / rel).write_text("")
    for path in [home, *home.rglob("*")]:
        path.chmod(0o777 if path.is_dir() else 0o666)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CATCODE_"))}
    env.update(HOME=str(home_dir), CATCODE_HOME=str(home), GIT_CONFIG_GLOBAL="/dev/null")

    def memory_list() -> subprocess.CompletedProcess[str]:
        command = ["/bin/sh", "-c", 'umask 022 && exec "$@"', "sh", *catcode_argv(), "memory", "list"]
        return subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, timeout=bound(60))

    first = memory_list()
    assert first.returncode == 0, first.stderr
    notices = [line for line in first.stderr.splitlines() if "private (0600/0700)" in line]
    assert len(notices) == 1 and str(home) in notices[0]
    assert wider_than_private(home, modes(home)) == []
    second = memory_list()
    assert "private (0600/0700)" not in second.stderr  # nothing left to tighten: no notice


def test_tightening_never_follows_a_symlink_out_of_catcodes_folders(tmp_path: Path) -> None:
    """A link in ~/.cat-code (or a memory.dir that is not only catcode's) must not make catcode chmod someone
    else's files: links are skipped, and a memory root's unknown folders are not walked."""
    from catcode.file_modes import tighten

    outside = tmp_path / "shared"
    outside.mkdir()
    (outside / "notes.txt").write_text("")
    (outside / "notes.txt").chmod(0o644)
    outside.chmod(0o755)
    home = tmp_path / "home"
    (home / "memory" / "unrelated").mkdir(parents=True)
    (home / "memory" / "unrelated" / "file").write_text("")
    (home / "memory" / "unrelated" / "file").chmod(0o644)
    (home / "link").symlink_to(outside, target_is_directory=True)
    (home / "file-link").symlink_to(outside / "notes.txt")
    memory = home / "memory"
    tighten([memory / ".git", memory / "users"], shallow=[memory])
    assert stat.S_IMODE(os.stat(memory / "unrelated" / "file").st_mode) == 0o644
    tighten([home])
    assert stat.S_IMODE(os.stat(outside).st_mode) == 0o755
    assert stat.S_IMODE(os.stat(outside / "notes.txt").st_mode) == 0o644
