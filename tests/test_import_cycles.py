"""No import cycle anywhere in ``catcode/``: every ``import`` of every module — at module level, inside functions
and under ``if TYPE_CHECKING`` alike, relative imports resolved — is an edge, and the graph must be acyclic.

A cycle hides which module is the lower layer; a lazy (function-level) import only hides the cycle from Python,
not from the reader, so it counts too. The same graph checks that the memory layers import downwards only, and,
with each module counted as its package (``catcode.session``, ``catcode.cli``...), that no package-level loop
exists and that each package imports from lower floors only."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

PACKAGE = Path(__file__).resolve().parents[1] / "catcode"

ALLOWED: set[frozenset[str]] = set()
"""Known cycles (each as the set of its modules) tolerated for now. Nothing may be added here."""

LAYERS = [
    ("catcode.fsutil", "catcode.redact"),
    ("catcode.memory.versioning",),
    ("catcode.memory.store",),
    ("catcode.memory.pipeline",),
    ("catcode.memory.recall",),
    (
        "catcode.memory",
        "catcode.commands",
        "catcode.cli.memory_cli",
        "catcode.web",
        "catcode.app.build",
    ),
]
"""The memory layers, lowest first (a package stands for its modules): a module imports from its own layer or
lower ones only. Versioning knows nothing of memories, the store is versioned through a Protocol, recall reads
the pipeline's history; the runtime, the model's tools and the commands use them all."""


class Cycle(NamedTuple):
    """A group of modules that import each other (a strongly connected component) and one shortest cycle of it."""

    group: frozenset[str]
    path: list[str]


def module_names(root: Path) -> dict[str, Path]:
    """Every module under the package folder ``root``, by dotted name (a package by its ``__init__.py``)."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def imported_modules(name: str, path: Path, known: Iterable[str]) -> set[str]:
    """The modules of ``known`` that module ``name`` (at ``path``) imports anywhere in its body.

    ``from a.b import c`` imports the module ``a.b.c`` when there is one, else ``a.b`` (``c`` is a name in it)."""
    known = set(known)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        found.update(target for target in targets if target in known and target != name)
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module → the package's modules it imports."""
    modules = module_names(root)
    return {name: imported_modules(name, path, modules) for name, path in modules.items()}


def find_cycles(graph: Mapping[str, Iterable[str]]) -> list[Cycle]:
    """Every group of mutually importing modules, with one shortest cycle ``[a, b, ..., a]`` starting at the
    group's first module in sorted order; ``[]`` when the graph is acyclic."""
    edges = {node: sorted(set(targets)) for node, targets in graph.items()}
    for targets in list(edges.values()):
        for target in targets:
            edges.setdefault(target, [])
    reach = {node: _reachable(edges, node) for node in edges}
    cycles, seen = [], set()
    for node in sorted(edges):
        if node in seen or node not in reach[node]:
            continue
        group = {other for other in reach[node] if node in reach[other]}
        seen |= group
        cycles.append(Cycle(frozenset(group), _shortest_cycle(edges, node)))
    return cycles


def _reachable(edges: Mapping[str, list[str]], start: str) -> set[str]:
    """Nodes reachable from ``start`` by one edge or more (``start`` itself only through a cycle)."""
    found: set[str] = set()
    stack = list(edges[start])
    while stack:
        node = stack.pop()
        if node not in found:
            found.add(node)
            stack.extend(edges[node])
    return found


def _shortest_cycle(edges: Mapping[str, list[str]], start: str) -> list[str]:
    """Breadth-first from ``start`` back to itself (``start`` must be on a cycle)."""
    parent: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in edges[node]:
                if target == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(parent[path[-1]])
                    return [*reversed(path), start]
                if target not in parent:
                    parent[target] = node
                    following.append(target)
        frontier = following
    raise ValueError(f"{start} is on no cycle")


def test_catcode_has_no_import_cycle() -> None:
    cycles = find_cycles(import_graph(PACKAGE))
    unexpected = [cycle.path for cycle in cycles if cycle.group not in ALLOWED]
    assert not unexpected, "import cycles: " + "; ".join(" → ".join(path) for path in unexpected)


def test_every_allowed_cycle_still_exists() -> None:
    """An allowed cycle that was broken is removed from ``ALLOWED`` so that it cannot come back unnoticed."""
    present = {cycle.group for cycle in find_cycles(import_graph(PACKAGE))}
    broken = ALLOWED - present
    assert not broken, f"no longer cycles, remove them from ALLOWED: {sorted(map(sorted, broken))}"


def package_of(module: str) -> str:
    """The unit of the package-level graph: ``catcode.X`` for every module under ``catcode/X/`` (a top-level
    module is its own unit)."""
    return ".".join(module.split(".")[:2])


def package_graph(graph: Mapping[str, Iterable[str]]) -> dict[str, set[str]]:
    """The module graph with each module replaced by its unit; imports inside a unit are dropped."""
    packages: dict[str, set[str]] = {}
    for module, targets in graph.items():
        here = package_of(module)
        packages.setdefault(here, set()).update(package_of(t) for t in targets if package_of(t) != here)
    return packages


PACKAGE_LAYERS = [
    ("catcode", "catcode.errors", "catcode.log", "catcode.fsutil", "catcode.confined", "catcode.boundary",
     "catcode.file_modes", "catcode.text", "catcode.screen", "catcode.names", "catcode.front_matter", "catcode.redact",
     "catcode.programs", "catcode.git_locks"),
    ("catcode.settings",),
    ("catcode.conversation",),
    ("catcode.hooks",),
    ("catcode.providers", "catcode.sandbox"),
    ("catcode.tools",),
    ("catcode.safety",),
    ("catcode.session",),
    ("catcode.commands",),
    ("catcode.memory", "catcode.extensions", "catcode.checkpoints"),
    ("catcode.mcp_server", "catcode.web", "catcode.app"),
    ("catcode.ui",),
    ("catcode.cli", "catcode.__main__"),
]  # fmt: skip
"""The packages, lowest first: each imports from lower floors only (function-level and ``TYPE_CHECKING`` imports
included). The settings import no feature (each feature's section is a module of ``settings``); the conversation's
types sit below the providers that send them; ``session`` (the agent loop) and the slash-command registry below the
features that attach to them, each feature bringing its own commands; ``app`` (the composition root) above every
feature; the front ends on top."""


def package_floor(unit: str) -> int:
    """The index of ``unit`` in ``PACKAGE_LAYERS`` (a new package must be given its floor there)."""
    for index, units in enumerate(PACKAGE_LAYERS):
        if unit in units:
            return index
    raise AssertionError(f"{unit} has no floor in PACKAGE_LAYERS")


def test_the_package_level_graph_has_no_cycle() -> None:
    cycles = find_cycles(package_graph(import_graph(PACKAGE)))
    assert not cycles, "package-level import cycles: " + "; ".join(" → ".join(c.path) for c in cycles)


def test_packages_import_downwards_only() -> None:
    upward = [
        f"{module} → {target}"
        for module, targets in sorted(import_graph(PACKAGE).items())
        for target in sorted(targets)
        if package_floor(package_of(target)) > package_floor(package_of(module))
    ]
    assert upward == []


def test_package_units_and_their_cycles() -> None:
    graph = {
        "catcode.session.agent": {"catcode.session.messages", "catcode.log"},
        "catcode.memory.x": {"catcode.session.messages"},
        "catcode.session.app": {"catcode.memory.x"},
        "catcode.log": set(),
    }
    packages = package_graph(graph)
    assert packages == {"catcode.session": {"catcode.log", "catcode.memory"}, "catcode.memory": {"catcode.session"},
                        "catcode.log": set()}  # fmt: skip
    assert paths(packages) == [["catcode.memory", "catcode.session", "catcode.memory"]]


def layer_of(module: str) -> int | None:
    """The index in ``LAYERS`` of the most specific package holding ``module``; None outside the layers."""
    found = [
        (len(package), index)
        for index, packages in enumerate(LAYERS)
        for package in packages
        if module == package or module.startswith(package + ".")
    ]
    return max(found)[1] if found else None


def upward_imports(graph: Mapping[str, Iterable[str]]) -> list[str]:
    """Every import from a lower layer into a higher one, as ``importer → imported``."""
    wrong = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            low, high = layer_of(module), layer_of(target)
            if low is not None and high is not None and high > low:
                wrong.append(f"{module} → {target}")
    return wrong


def test_memory_layers_import_downwards_only() -> None:
    assert upward_imports(import_graph(PACKAGE)) == []


def test_upward_imports_are_found() -> None:
    assert layer_of("catcode.memory.store.store") == 2
    assert layer_of("catcode.memory.runtime") == 5
    assert layer_of("catcode.cli.memory_cli") == 5
    assert layer_of("catcode.session.agent") is None
    graph = {
        "catcode.memory.store.store": {"catcode.fsutil", "catcode.memory.pipeline.history", "catcode.session.agent"},
        "catcode.memory.pipeline.manager": {"catcode.memory.store.store"},
        "catcode.memory.versioning.git_store": {"catcode.memory.store.models"},
    }
    assert upward_imports(graph) == [
        "catcode.memory.store.store → catcode.memory.pipeline.history",
        "catcode.memory.versioning.git_store → catcode.memory.store.models",
    ]


def test_the_walk_sees_the_modules_and_their_imports() -> None:
    graph = import_graph(PACKAGE)
    assert "catcode.ui.line_runner" in graph["catcode.ui.piped"]
    assert "catcode.cli.front_ends" in graph["catcode.cli"]  # a function-level import


def paths(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    return [cycle.path for cycle in find_cycles(graph)]


def test_find_cycles_on_small_graphs() -> None:
    assert paths({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    assert paths({"a": {"b", "c"}, "b": {"c"}, "c": {"d"}, "d": set()}) == []  # a diamond is no cycle
    assert paths({"a": {"a"}}) == [["a", "a"]]
    assert paths({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert paths({"x": {"y", "z"}, "y": {"x"}, "z": {"w"}, "w": {"z"}}) == [["w", "z", "w"], ["x", "y", "x"]]
    # one report per group, naming all of it: c is in a's group although the shortest cycle skips it
    assert find_cycles({"a": {"b", "c"}, "b": {"a", "c"}, "c": {"a"}}) == [
        Cycle(frozenset({"a", "b", "c"}), ["a", "b", "a"])
    ]


def test_relative_function_level_and_type_checking_imports_make_cycles(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "low.py": "import os\n",
        "sub/__init__.py": "",
        "sub/a.py": "from . import b\nfrom ..low import os\n",
        "sub/b.py": "def f():\n    from pkg.sub.c import C\n",
        "sub/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import A\n",
    }
    for name, text in files.items():
        (package / name).write_text(text)
    graph = import_graph(package)
    assert graph["pkg.sub.a"] == {"pkg.sub.b", "pkg.low"}
    assert paths(graph) == [["pkg.sub.a", "pkg.sub.b", "pkg.sub.c", "pkg.sub.a"]]
