"""Shared fixtures, and the tiers of the suite. Every test runs with HOME and CATCODE_HOME in a temp dir: nothing
touches the real home.

Tiers (markers registered in ``pyproject.toml``, assigned here and nowhere else, by what a test uses):

- ``e2e``: it drives the real ``catcode`` in a pseudo-terminal (it reaches ``pexpect``, e.g. through the
  ``spawn_catcode`` fixture);
- ``process``: it starts a process of catcode's own code — the console script or ``python -m catcode`` (it reaches
  ``catcode_argv``, or a function of it runs ``sys.executable`` through ``subprocess``/``multiprocessing``): a
  second interpreter starts, imports, and maybe serves;
- ``slow``: one of the few in-process tests measured at over ``SLOW_SECONDS`` on a 2-core machine (``SLOW``).

"What a test uses" is read from its code: the names the test function, its fixtures and the test helpers they call
refer to (helpers of ``tests/`` only, followed through calls; never the product's code). ``scripts/test.sh`` runs
every tier; ``scripts/test.sh quick`` the in-process ones (``-m "not e2e and not process and not slow"``).

Property tests take their budget from a Hypothesis profile, not from their own ``@settings``: ``ci`` (what
``scripts/test.sh`` runs) or ``dev`` (the inner loop, and a bare ``pytest``), chosen with ``--hypothesis-profile``.
Neither has a deadline: a property test must not fail on the clock of a busy machine. A test keeps its own
``max_examples`` only where an example costs much (real HTTP, git, a process), saying so.

Every wait of a test is for state it can observe, bounded by ``bound(seconds)`` (``tests/slowness.py``): generous on
an idle machine, scaled by how busy this one is now — pytest-timeout's bound too."""

from __future__ import annotations

import os
import types
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
import pytest_timeout
from hypothesis import settings

from tests.slowness import bound

_REAL_CATCODE_HOME = Path(os.path.expanduser("~")) / ".cat-code"
TESTS = str(Path(__file__).parent) + os.sep

# CI explores the same examples on every run (derandomize): a red CI is then the change's, never the luck of a draw;
# the dev profile of the inner loop draws new ones each run, and whatever it finds is kept as an @example.
settings.register_profile("ci", max_examples=100, deadline=None, print_blob=True, derandomize=True)
settings.register_profile("dev", max_examples=20, deadline=None)
settings.load_profile("dev")

SLOW_SECONDS = 5.0
SLOW: dict[str, float] = {
    # "file name::test name" (all its parameters) or "file name::test name[parameters]": seconds it takes, measured
    # under load and divided by the load's slowness (``tests/slowness.py``); only in-process tests need a place here
    "test_bench_fresh_search.py::"
    "test_the_fresh_search_section_is_registered_and_answers_as_a_full_parse_on_a_slice": 12.5,
    "test_sync_property.py::test_any_interleaving_converges_and_loses_nothing": 9.1,
    "test_simulation.py::test_months_of_sessions_keep_every_promise": 7.9,
    "test_crash.py::test_writers_killed_at_random_moments_lose_no_finished_write": 6.9,
    "test_concurrency.py::test_every_process_finishes_every_write_without_an_error": 6.1,
    "test_sandbox_corpus.py::"
    "test_the_security_corpus_stays_inside_the_fence[test_rule_bypass:DENY_BYPASSES:extra flags]": 6.0,
}
TERMINAL = frozenset({"pexpect"})  # a name whose use means a pseudo-terminal
CATCODE_PROCESS = frozenset({"catcode_argv"})  # the real console script
PYTHON = frozenset({"executable"})  # ``sys.executable``, run through one of
STARTS = frozenset({"subprocess", "Popen", "Process", "multiprocessing"})


def _names(code: types.CodeType) -> set[str]:
    """Every global or attribute name ``code`` (and the functions defined in it) refers to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _reached(functions: Iterable[Callable[..., Any]]) -> list[set[str]]:
    """The names each of ``functions`` refers to, and each of the test helpers (functions in ``tests/``) they
    call: one set per function (a process is started where one function names both the program and the call)."""
    reached: list[set[str]] = []
    seen: set[Any] = set()
    todo = list(functions)
    while todo:
        function = todo.pop()
        code = getattr(function, "__code__", None)
        if code is None or code in seen:
            continue
        seen.add(code)
        found = _names(code)
        reached.append(found)
        scope = getattr(function, "__globals__", {})
        for name in found:
            helper = scope.get(name)
            if isinstance(helper, types.FunctionType) and helper.__code__.co_filename.startswith(TESTS):
                todo.append(helper)
    return reached


def _tiers(item: pytest.Function) -> list[str]:
    # the functions of the fixtures the test gets (pytest offers no public way to them at collection)
    fixtures = [d.func for defs in item._fixtureinfo.name2fixturedefs.values() for d in defs]
    reached = _reached([item.function, *fixtures])
    tiers = []
    if any(names & TERMINAL for names in reached):
        tiers.append("e2e")
    elif any(names & CATCODE_PROCESS or (names & PYTHON and names & STARTS) for names in reached):
        tiers.append("process")
    if {f"{item.path.name}::{item.originalname}", f"{item.path.name}::{item.name}"} & SLOW.keys():
        tiers.append("slow")
    return tiers


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test with its tiers."""
    for item in items:
        if isinstance(item, pytest.Function):
            for tier in _tiers(item):
                item.add_marker(tier)


def _snapshot(path: Path) -> object:
    try:
        return path.stat().st_mtime_ns
    except FileNotFoundError:
        return None


@pytest.fixture(autouse=True, scope="session")
def _real_home_untouched():
    """No test may create or change the real ``~/.cat-code``."""
    before = _snapshot(_REAL_CATCODE_HOME)
    yield
    assert _snapshot(_REAL_CATCODE_HOME) == before, f"a test wrote to the real {_REAL_CATCODE_HOME}"


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CATCODE_HOME", str(home / ".cat-code"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    for var in ("CATCODE_MODEL", "CATCODE_PERMISSION_MODE", "CATCODE_USER_ID", "CATCODE_MEMORY_ENABLED"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(autouse=True, scope="session")
def _quiet_structlog() -> None:
    """Logs go nowhere in tests (``structlog.testing.capture_logs`` still sees them): rendering tracebacks to
    stdout made failure-heavy property tests several times slower."""
    import structlog

    structlog.configure(
        processors=[structlog.processors.add_log_level],
        logger_factory=structlog.ReturnLoggerFactory(),
        cache_logger_on_first_use=False,
    )


@pytest.hookimpl(tryfirst=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> bool:
    """pytest-timeout's bound (``timeout`` in ``pyproject.toml``, or a test's own mark) is for an idle machine:
    scaled by how busy this one is now, so that only a hang hits it."""
    return bool(pytest_timeout.pytest_timeout_set_timer(item, settings._replace(timeout=bound(settings.timeout))))
