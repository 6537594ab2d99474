"""Issue 15 §7: messages a person reads — plain words instead of pydantic's, stray arguments, /help memory, a
rejected API key as a setup problem."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.e2e.conftest import Catcode
from tests.e2e.test_memory_e2e import MEMORY_ON, MemoryModel
from tests.e2e.test_shell_input_e2e import run
from tests.fakes import FakeAnthropicServer, status

Spawn = Callable[..., Catcode]
BOGUS = "catcode: unknown permission mode 'bogus' (choose: default, accept-edits, read-only, bypass, plan)\n"


def test_repl_messages(spawn_catcode: Spawn, fake_server: FakeAnthropicServer) -> None:
    fake_server.responder = MemoryModel()
    cat = spawn_catcode(env=MEMORY_ON)
    cat.prompt()
    cat.say("/cost extra")
    cat.expect_text("/cost takes no arguments (got 'extra') — /help cost")
    cat.prompt()
    cat.say("/mcp extra")
    cat.expect_text("/mcp takes no arguments (got 'extra') — /help mcp")
    cat.prompt()
    cat.say("/skills extra")
    cat.expect_text("/skills takes no arguments but show <name> (got 'extra') — /help skills")
    cat.prompt()
    cat.say("/help memory")
    for sub in ("list", "show", "clear", "log", "diff", "revert", "status", "search", "recent"):
        cat.expect_text(f"/memory {sub}")
    cat.prompt()
    assert cat.exit() == 0


def test_shell_messages(project: Path, catcode_env: dict, fake_server: FakeAnthropicServer) -> None:
    proc = run(project, catcode_env, "--permission-mode", "bogus", "-p", "hi")
    assert proc.returncode == 2 and proc.stderr == BOGUS
    (project / ".cat-code").mkdir()
    (project / ".cat-code" / "settings.yaml").write_text("max_tokens: lots\npermissions:\n  mode: bogus\n")
    proc = run(project, catcode_env, "-p", "hi")
    assert proc.returncode == 2
    assert "max_tokens: expected a whole number, got 'lots'" in proc.stderr and "Input should" not in proc.stderr
    (project / ".cat-code" / "settings.yaml").unlink()

    proc = run(project, catcode_env, "-p", "hi", "--output-format", "xml")
    assert proc.returncode == 2
    assert "Invalid value for '--output-format': unknown value 'xml' (choose: text, json, stream-json)" in proc.stderr
    proc = run(project, catcode_env, "memory", "recent", "lots")
    assert proc.returncode == 2 and "expected a whole number from 1 to 100, got 'lots'" in proc.stderr
    assert fake_server.requests() == []

    fake_server.enqueue(status(401, "invalid x-api-key"))
    proc = run(project, catcode_env, "-p", "hi")
    assert proc.returncode == 2  # a rejected key is a setup problem, like a missing one
    assert "Authentication failed (401) — check ANTHROPIC_API_KEY" in proc.stderr
