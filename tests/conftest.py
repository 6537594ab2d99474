"""Shared fixtures. Every test runs with HOME and CATCODE_HOME in a temp dir: nothing touches the real home."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CATCODE_HOME", str(home / ".cat-code"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
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
