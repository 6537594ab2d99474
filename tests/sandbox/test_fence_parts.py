"""The fence's parts that need no bubblewrap (issue 32 §5, §6): what is hidden and shown again, which variables
are withheld, how many outside-linked files fold into how many mounts, and what a project's sandbox settings may
not loosen without consent."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from catcode.sandbox.environment import fenced_environment, secret_name, withheld
from catcode.sandbox.hardlinks import fold, linked_outside
from catcode.sandbox.hidden import defaults, plan


def _tree(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        if name.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x")


def test_hidden_less_what_is_given_back_and_shown_again_inside(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _tree(home, ".ssh/id_rsa", ".ssh/known_hosts", ".aws/credentials", ".netrc", ".cat-code/skills/s/run.sh",
          ".cat-code/memory/users/u/m.md", "work/project/")  # fmt: skip
    hidden, shown = defaults(home, home / ".cat-code", home / ".cat-code" / "memory")
    cover = plan(hidden, shown, [home / ".ssh" / "known_hosts", home / ".aws"], [home / "work" / "project"])
    assert cover.folders == [home / ".ssh", home / ".cat-code"]  # the memory folder is inside catcode's home
    assert cover.files == [home / ".netrc"]
    assert cover.shown == [home / ".cat-code" / "skills", home / ".ssh" / "known_hosts"]
    # A project in a hidden folder stays visible; a link hides what it points to.
    (home / "keys").symlink_to(home / ".ssh")
    cover = plan([home / "keys"], [], [], [home / ".ssh" / "project"])
    assert cover.folders == [home / ".ssh"] and cover.shown == []


@given(st.from_regex(r"[A-Z][A-Z0-9_]{0,20}", fullmatch=True))
def test_names_that_end_in_a_secret_word_are_withheld(stem: str) -> None:
    for suffix in ("_TOKEN", "_SECRET", "_PASSWORD", "_KEY", "_API_KEY", "_CREDENTIALS"):
        assert secret_name(stem + suffix)
    assert secret_name("AWS_" + stem)


def test_the_environment_policy_keeps_the_rest_and_passes_by_name() -> None:
    env = {
        "PATH": "/usr/bin", "HOME": "/home/a", "LANG": "C.UTF-8", "TOKENIZERS_PARALLELISM": "false",
        "KEYTIMEOUT": "1", "ANTHROPIC_API_KEY": "x", "GH_TOKEN": "x", "PGPASSWORD": "x", "MYSQL_PWD": "x",
        "SSH_AUTH_SOCK": "/tmp/agent", "LOOKS_PLAIN": "xoxb-" + "1" * 12 + "-" + "2" * 12 + "-" + "a" * 24,
    }  # fmt: skip
    assert withheld(env, []) == [
        "ANTHROPIC_API_KEY",
        "GH_TOKEN",
        "LOOKS_PLAIN",
        "MYSQL_PWD",
        "PGPASSWORD",
        "SSH_AUTH_SOCK",
    ]
    kept = fenced_environment(env, ["GH_TOKEN", "SSH_*"])
    assert sorted(kept) == ["GH_TOKEN", "HOME", "KEYTIMEOUT", "LANG", "PATH", "SSH_AUTH_SOCK", "TOKENIZERS_PARALLELISM"]


def test_only_links_with_names_outside_are_found(tmp_path: Path) -> None:
    project, store = tmp_path / "project", tmp_path / "store"
    _tree(store, "pkg.js")
    _tree(project, "src/a.js", "node_modules/pkg/")
    os.link(store / "pkg.js", project / "node_modules" / "pkg" / "index.js")
    os.link(project / "src" / "a.js", project / "src" / "copy.js")  # cp -al inside the project
    (project / "link.js").symlink_to(store / "pkg.js")  # a symlink is the fence's business, not a hard link
    assert linked_outside(project) == [project / "node_modules" / "pkg" / "index.js"]


@given(st.lists(st.lists(st.sampled_from("abcd"), min_size=1, max_size=5), min_size=1, max_size=80), st.integers(1, 8))
def test_folding_covers_every_file_in_the_budget_but_never_folds_the_project(
    parts: list[list[str]], budget: int
) -> None:
    root = Path("/project")
    files = sorted({root.joinpath(*p, "f") for p in parts})
    folded = fold(files, root, budget)
    assert all(any(f.is_relative_to(m) for m in folded) for f in files)
    assert root not in folded
    top = {root / f.relative_to(root).parts[0] for f in files}
    assert len(folded) <= max(budget, len(top))
