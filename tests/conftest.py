"""Shared fixtures. Every test runs with HOME and CATCODE_HOME in a temp dir: nothing touches the real home."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_REAL_CATCODE_HOME = Path(os.path.expanduser("~")) / ".cat-code"


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
