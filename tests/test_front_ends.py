"""No front end imports another: the REPL (``ui/`` and the slash commands), the shell (``cli/``), the web view
(``web/``) and the MCP server (``mcp_server/``) each call the shared flows (memory's through its front door,
``tests/test_memory_front_door.py``) and word their results in their own voice (``memory/words.py``), so that one
front end never rewords another's sentences. Read from the import graph of ``tests/test_import_cycles.py``
(every import, function-level and ``TYPE_CHECKING`` ones included).

The one kind of edge allowed across: an entry point of the shell starting the front end it launches
(``catcode`` the REPL, ``catcode mcp serve`` the MCP server, ``catcode memory serve`` the web view). Shared code
(the flows, the features) imports no front end at all, but for the composition root and the parts of a session
(``session.parts``) wiring the slash commands in — a part its own feature's, and nothing of the other front ends."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from test_import_cycles import PACKAGE, import_graph

REGISTRY = "catcode.commands.registry"
"""A module that imports the slash-command registry defines slash commands: it is part of the REPL."""
COMPOSITION_ROOT = "catcode.app"
"""Wires every part together (the slash commands included) for every front end: no front end itself."""
PART_SEAM = "catcode.session.parts"
"""A module that imports the seam attaches a part to a session: it wires that part's slash commands in."""
PACKAGES = {"catcode.ui": "repl", "catcode.commands": "repl", "catcode.cli": "shell", "catcode.web": "web",
            "catcode.mcp_server": "mcp"}  # fmt: skip
LAUNCHES = {
    "catcode.cli.front_ends": "repl",  # a bare ``catcode`` (and print mode's piped input) starts the REPL
    "catcode.cli.mcp_cli": "mcp",  # ``catcode mcp serve``
    "catcode.cli.memory_cli": "web",  # ``catcode memory serve`` serves the web view
}
"""The shell's entry points, each allowed to import the one front end it starts."""
ENTRY = {"catcode.__main__"}
"""``python -m catcode``: runs the command line."""


def front_end(module: str, graph: Mapping[str, Iterable[str]]) -> str | None:
    """The front end ``module`` belongs to (``repl``, ``shell``, ``web``, ``mcp``), None for shared code."""
    for package, name in PACKAGES.items():
        if module == package or module.startswith(package + "."):
            return name
    if REGISTRY in graph.get(module, ()) and not module.startswith(COMPOSITION_ROOT + "."):
        return "repl"
    return None


def crossings(graph: Mapping[str, Iterable[str]]) -> list[str]:
    """Every import of one front end's module by another front end's, but for the launches."""
    found = []
    for module, targets in sorted(graph.items()):
        here = front_end(module, graph)
        for target in sorted(targets):
            there = front_end(target, graph)
            if here and there and here != there and LAUNCHES.get(module) != there:
                found.append(f"{module} ({here}) → {target} ({there})")
    return found


def test_no_front_end_imports_another() -> None:
    assert crossings(import_graph(PACKAGE)) == []


def wires_slash_commands(module: str, target: str, graph: Mapping[str, Iterable[str]]) -> bool:
    """``module`` is a part of a session (it attaches through ``PART_SEAM``) and ``target`` a slash-command module
    (the REPL's) of the same feature: each part wires its own commands in, imported only when the REPL builds its
    registry."""
    feature = module.rpartition(".")[0] + "."
    return PART_SEAM in graph.get(module, ()) and front_end(target, graph) == "repl" and target.startswith(feature)


def shared_to_front_end(graph: Mapping[str, Iterable[str]]) -> list[str]:
    """Every import of a front end's module by shared code (a flow, a feature, a tool), but for the entry point,
    the composition root and each part of a session wiring the slash commands in."""
    return [
        f"{module} → {target}"
        for module, targets in sorted(graph.items())
        if front_end(module, graph) is None and module not in ENTRY and not module.startswith(COMPOSITION_ROOT + ".")
        for target in sorted(targets)
        if front_end(target, graph) is not None and not wires_slash_commands(module, target, graph)
    ]


def test_shared_code_imports_no_front_end() -> None:
    """A flow that imported a front end's module would word its result in that front end's words for all."""
    assert shared_to_front_end(import_graph(PACKAGE)) == []


def test_each_front_end_is_found() -> None:
    graph = import_graph(PACKAGE)
    assert front_end("catcode.ui.repl", graph) == "repl"
    assert front_end("catcode.memory.commands", graph) == "repl"  # a feature's slash commands
    assert front_end("catcode.memory.words", graph) is None  # every front end's words, over shared sentences
    assert front_end("catcode.cli.memory_cli", graph) == "shell"
    assert front_end("catcode.web.api", graph) == "web"
    assert front_end("catcode.mcp_server.serve", graph) == "mcp"
    assert front_end("catcode.memory.flows", graph) is None
    assert front_end("catcode.app.build", graph) is None  # it registers slash commands, for every front end


def test_every_launch_still_imports_what_it_starts() -> None:
    """A launch that no longer starts its front end is removed from ``LAUNCHES``, so that it cannot hide an
    import that words another front end's sentences."""
    graph = import_graph(PACKAGE)
    stale = [m for m, there in LAUNCHES.items() if not any(front_end(t, graph) == there for t in graph[m])]
    assert stale == []


def test_crossings_are_found_on_a_small_graph() -> None:
    graph: dict[str, set[str]] = {
        "catcode.web.api": {"catcode.cli.memory_cli", "catcode.memory.flows"},
        "catcode.cli.print_mode": {"catcode.commands.resume", "catcode.session.resuming"},
        "catcode.cli.front_ends": {"catcode.ui.repl"},  # a launch
        "catcode.cli.mcp_cli": {"catcode.ui.repl"},  # not what it launches
        "catcode.mcp_server.serve": {"catcode.extensions.agents"},
        "catcode.extensions.agents": {REGISTRY},  # a slash command module
        "catcode.app.build": {REGISTRY, "catcode.ui.repl"},
    }
    assert crossings(graph) == [
        "catcode.cli.mcp_cli (shell) → catcode.ui.repl (repl)",
        "catcode.cli.print_mode (shell) → catcode.commands.resume (repl)",
        "catcode.mcp_server.serve (mcp) → catcode.extensions.agents (repl)",
        "catcode.web.api (web) → catcode.cli.memory_cli (shell)",
    ]
    graph["catcode.memory.flows"] = {"catcode.memory.commands", "catcode.memory.store.store"}
    graph["catcode.memory.commands"] = {REGISTRY}
    assert shared_to_front_end(graph) == ["catcode.memory.flows → catcode.memory.commands"]


def test_a_part_may_import_its_own_slash_commands_only() -> None:
    graph = {
        "catcode.memory.part": {PART_SEAM, "catcode.memory.commands", "catcode.cli.memory_cli"},
        "catcode.memory.commands": {REGISTRY},
        "catcode.memory.flow": {"catcode.memory.commands"},
        "catcode.skills.part": {PART_SEAM, "catcode.memory.commands"},
    }
    assert shared_to_front_end(graph) == [
        "catcode.memory.flow → catcode.memory.commands",  # not a part: it would word its results the REPL's way
        "catcode.memory.part → catcode.cli.memory_cli",  # another front end
        "catcode.skills.part → catcode.memory.commands",  # another feature's commands
    ]
