"""Issue 32 §2: every row of the table of files through which git reads its settings or finds programs
(``catcode.sandbox.git_files.GIT_FILES``), attacked from inside the fence — as root and as an unprivileged user —
then the person's own git runs outside it, and nothing planted runs (or shows up as the project's).

Each attack plants ``evil.sh`` in the project (a fenced command may: the project is writable), which leaves
``$OUTSIDE/ran`` when run, and points git at it through the row's file."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from catcode.sandbox.git_files import GIT_FILES
from tests.security.fence_world import World

EVIL = 'printf "#!/bin/sh\\ntouch $OUTSIDE/ran\\n" > evil.sh && chmod +x evil.sh'
PLANTED_CONFIG = f'{EVIL}; printf "[core]\\n\\tfsmonitor = $PWD/evil.sh\\n"'
PLANTED_COMMON = "mkdir -p planted && cp -r .git/. planted/ && " + PLANTED_CONFIG + " >> planted/config"
"""A copy of the repository whose config runs ``evil.sh`` at every git status."""


@dataclass(frozen=True)
class Attack:
    """The person's own setup, the fenced command, and what the person runs afterwards."""

    setup: str
    fenced: str
    afterwards: str


WORKTREE = "git worktree add -q ../wt"
ATTACKS = {
    "config": Attack("true", f"{EVIL}; git config core.fsmonitor $PWD/evil.sh", "git status"),
    "config.worktree": Attack(
        "git config extensions.worktreeConfig true", f"{PLANTED_CONFIG} > .git/config.worktree", "git status"
    ),
    "commondir": Attack("true", f"{PLANTED_COMMON}; echo $PWD/planted > .git/commondir", "git status"),
    "hooks": Attack(
        "true",
        f"{EVIL}; cp evil.sh .git/hooks/pre-commit"
        " || (rm -rf .git/hooks; mkdir .git/hooks; cp evil.sh .git/hooks/pre-commit)",
        "git commit -q --allow-empty -m next",
    ),
    "info": Attack(
        "git config filter.demo.clean 'sh -c \"touch $OUTSIDE/ran; cat\"'",  # the person's own driver, for *.demo
        "echo '* filter=demo' > .git/info/attributes",
        "echo more >> README.md && git add README.md",
    ),
    "objects/info/alternates": Attack(
        "true",
        "git init -q planted && echo planted | git --git-dir=planted/.git hash-object -w --stdin"
        " && echo $PWD/planted/.git/objects > .git/objects/info/alternates",
        "git cat-file -e $(echo planted | git hash-object --stdin) && touch $OUTSIDE/ran",  # taken as the project's
    ),
    "worktrees": Attack(
        WORKTREE, f"{PLANTED_COMMON}; echo $PWD/planted > .git/worktrees/wt/commondir", "cd ../wt && git status"
    ),
    "modules": Attack(
        "git init -q ../library && git -C ../library commit -q --allow-empty -m one"
        " && git -c protocol.file.allow=always submodule add -q ../library lib && git commit -qm lib",
        f"{EVIL}; git -C lib config core.fsmonitor $PWD/evil.sh",
        "git status",
    ),
    "gitdir": Attack(
        WORKTREE,
        "echo /nowhere/.git > .git/worktrees/wt/gitdir",
        "git worktree prune && git worktree list | grep -q /wt || touch $OUTSIDE/ran",  # the worktree is kept
    ),
}  # fmt: skip
"""One attack per row of ``GIT_FILES``."""


def test_every_row_of_the_table_is_attacked() -> None:
    assert sorted(ATTACKS) == sorted(row.path for row in GIT_FILES)
    assert all(row.why for row in GIT_FILES)


@pytest.mark.parametrize("row", sorted(ATTACKS))
def test_what_git_reads_later_stays_as_it_was(world: World, row: str) -> None:
    attack, ran = ATTACKS[row], world.outside_dir / "ran"
    world.run(attack.setup)
    world.fenced(attack.fenced)
    world.outside(attack.afterwards)
    assert not ran.exists(), f"{row}: something planted ran"
    # Teeth: unfenced, the same command does make the person's git run (or take) what it planted.
    world.outside(attack.fenced)
    world.outside(attack.afterwards)
    assert ran.exists(), f"{row}: the attack does nothing even unfenced"


def test_a_linked_worktree_keeps_its_own_git_files(world: World) -> None:
    world.run(WORKTREE)
    linked = world.root / "wt"
    own = "$(git rev-parse --git-dir)"
    world.fenced(
        f"{PLANTED_COMMON}; echo $PWD/planted > {own}/commondir; {PLANTED_CONFIG} > {own}/config.worktree;"
        f" echo /nowhere/.git > {own}/gitdir; echo x > y && git add y && git commit -qm second",
        project=linked,
    )
    world.outside("git -c extensions.worktreeConfig=true status && git worktree prune", cwd=linked)
    assert not (world.outside_dir / "ran").exists()
    assert "second" in world.run("git log --oneline -1", cwd=linked)  # its commits still work
    assert str(linked) in world.run("git worktree list")
