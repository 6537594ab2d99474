"""Memory has one front door: code outside ``catcode/memory/`` imports from it only ``memory/service.py`` (the
operations and their results), ``memory/part.py`` (memory as parts of a session, for the composition root) and
``memory/words.py`` (the sentences every front end shares, and each one's voice: the door returns data, never a
sentence), and ``memory/quick_search.py`` (a fresh process's search answered from the index alone) — and a front
end inside ``memory/`` (the REPL's ``/memory``) imports nothing else of it either. Read
from the import graph of ``tests/test_import_cycles.py`` (function-level and ``TYPE_CHECKING`` imports included).

``python tests/test_memory_front_door.py [CHECKOUT]`` prints the imports from outside into ``memory/`` (file to
file) for any checkout, an older one too, for a before and after."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from test_front_ends import front_end
from test_import_cycles import PACKAGE, import_graph

MEMORY = "catcode.memory"
FRONT_DOOR = {
    "catcode.memory.service": "the operations and their results",
    "catcode.memory.part": "memory as parts of a session, for the composition root (and print mode's --resume)",
    "catcode.memory.words": "the sentences every front end shares and each one's voice around them",
    "catcode.memory.quick_search": "a fresh process's ``catcode memory search`` answered from the index alone, "
    "without the door's imports (settings, pydantic, the store)",
}
"""What code outside ``memory/`` may import of it, and why."""
MAX_IMPORTS_INTO_MEMORY = 12
"""File-to-file imports into ``memory/`` from outside (51 before the front door)."""


def inside(module: str) -> bool:
    """Whether ``module`` is memory's own."""
    return module == MEMORY or module.startswith(MEMORY + ".")


def imports_into_memory(graph: Mapping[str, Iterable[str]]) -> list[tuple[str, str]]:
    """Every import of a ``memory/`` module by a module outside it, sorted."""
    return sorted((m, t) for m, targets in graph.items() if not inside(m) for t in targets if inside(t))


def past_the_door(graph: Mapping[str, Iterable[str]]) -> list[str]:
    """Every import of memory's inner modules from outside, or from a front end inside ``memory/``."""
    found = [f"{m} → {t}" for m, t in imports_into_memory(graph) if t not in FRONT_DOOR]
    for module, targets in sorted(graph.items()):
        if inside(module) and front_end(module, graph) is not None:
            found += [f"{module} → {t}" for t in sorted(targets) if inside(t) and t not in FRONT_DOOR]
    return found


def test_outside_memory_only_the_front_door_is_imported() -> None:
    assert past_the_door(import_graph(PACKAGE)) == []


def test_imports_into_memory_stay_few() -> None:
    edges = imports_into_memory(import_graph(PACKAGE))
    assert len(edges) <= MAX_IMPORTS_INTO_MEMORY, edges


def test_the_repl_commands_are_found_as_a_front_end_inside_memory() -> None:
    """Else ``past_the_door`` would not check them."""
    assert front_end("catcode.memory.commands", import_graph(PACKAGE)) == "repl"


def test_every_allowed_module_is_still_used() -> None:
    """A door nobody goes through is removed from ``FRONT_DOOR``."""
    used = {target for _, target in imports_into_memory(import_graph(PACKAGE))}
    assert set(FRONT_DOOR) <= used


def test_past_the_door_on_a_small_graph() -> None:
    graph = {
        "catcode.web.api": {"catcode.memory.service", "catcode.memory.store.names"},
        "catcode.cli.memory_cli": {"catcode.memory.words"},
        "catcode.memory.commands": {"catcode.commands.registry", "catcode.memory.flows", "catcode.memory.service"},
        "catcode.memory.flows": {"catcode.memory.store.store"},
    }
    assert past_the_door(graph) == [
        "catcode.web.api → catcode.memory.store.names",
        "catcode.memory.commands → catcode.memory.flows",
    ]


def main(checkout: Path) -> None:
    """Print the imports into ``memory/`` from outside for the checkout at ``checkout``."""
    package = checkout / "catcode"
    edges = imports_into_memory(import_graph(package))
    print(f"imports into memory/ from outside: {len(edges)} ({len({t for _, t in edges})} memory modules)")
    for module, target in edges:
        print(f"  {module} → {target}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else PACKAGE.parent)
