"""Issue 32 §5, as root and as an unprivileged user: a file of the project hard-linked to a store outside it
(pnpm's layout, ``cp -al``) cannot be written through from inside the fence, whatever the command tries; links
made inside the project stay writable; and past the budget of mounts, the links' folders are held instead."""

from __future__ import annotations

from pathlib import Path

from catcode.sandbox.hardlinks import BUDGET
from tests.security.fence_world import World

PACKAGE = Path("node_modules/.pnpm/lodash@4.17.21/node_modules/lodash")


def _store(world: World, files: int = 1) -> Path:
    """A package store outside the project, linked into its node_modules as pnpm does."""
    store = world.outside_dir / "store"
    for index in range(files):
        world.write(store / f"f{index}.js", "module.exports = 1;\n")
    world.run(f"mkdir -p {PACKAGE} && ln {store}/*.js {PACKAGE}/")
    return store


WRITES = [
    f"echo evil >> {PACKAGE}/f0.js",
    f"echo evil > {PACKAGE}/f0.js",
    f"truncate -s 0 {PACKAGE}/f0.js",
    f"sed -i s/1/2/ {PACKAGE}/f0.js",
    f"python3 -c \"open('{PACKAGE}/f0.js', 'r+').write('evil')\"",
    f"chmod 600 {PACKAGE}/f0.js",
    f"ln {PACKAGE}/f0.js again.js; echo evil >> again.js",
    f"rm -rf node_modules && mkdir -p {PACKAGE} && echo evil > {PACKAGE}/f0.js",
]


def test_a_file_linked_to_a_store_outside_cannot_be_written_through(world: World) -> None:
    store = _store(world)
    result = world.fenced("; ".join(f"{{ {write}; }} 2>&1" for write in WRITES) + "; echo end")
    assert "Read-only file system" in result and result.endswith("end\nexit code: 0"), result
    assert (store / "f0.js").read_text() == "module.exports = 1;\n"
    assert (store / "f0.js").stat().st_mode & 0o777 == 0o644
    # Teeth: unfenced, the same write reaches the store.
    world.run(WRITES[0])
    assert (store / "f0.js").read_text() == "module.exports = 1;\nevil\n"


def test_links_made_inside_the_project_stay_writable(world: World) -> None:
    world.run("mkdir src && echo one > src/a.txt && cp -al src snapshot")
    result = world.fenced("echo two >> snapshot/a.txt && cat src/a.txt")
    assert result == "one\ntwo\nexit code: 0"


def test_many_links_are_held_by_their_folders(world: World) -> None:
    store = _store(world, files=BUDGET * 3)
    world.run("mkdir -p src && echo mine > src/app.js")
    result = world.fenced(f"echo evil >> {PACKAGE}/f{BUDGET * 2}.js; echo more >> src/app.js; echo end")
    assert "Read-only file system" in result and "end" in result, result
    assert (store / f"f{BUDGET * 2}.js").read_text() == "module.exports = 1;\n"
    assert (world.project / "src" / "app.js").read_text() == "mine\nmore\n"
