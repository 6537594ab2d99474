"""``catcode -p`` as a real subprocess, once with the lean client (the default) and once with ``api_client: sdk``:
the same output, exit code and requests for an answer, a retried overload, a rejected key (exit 2), an error
event mid-stream and a dropped connection."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.test_print_mode import run
from tests.fakes import FakeAnthropicServer, drop_midstream, error_midstream, status, text

SCENARIOS = {
    "answer": ([text("Hello from the fake model.")], 0),
    "overloaded_then_answer": ([status(529), text("Recovered.")], 0),
    "rejected_key": ([status(401, "invalid x-api-key")], 2),
    "error_event": ([error_midstream("Half an ans")], 1),
    "dropped": ([drop_midstream("cut")], 1),
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_either_client_prints_and_exits_the_same(project: Path, fake_server: FakeAnthropicServer, name: str) -> None:
    steps, code = SCENARIOS[name]
    seen = []
    for client in ("auto", "sdk"):
        fake_server.journal.clear()
        fake_server.enqueue(*steps)
        proc = run(project, fake_server, "-p", "hi", extra_env={"CATCODE_API_CLIENT": client})
        sent = fake_server.journal
        bodies = [(r.body["model"], r.body["messages"][-1], len(r.body["tools"]), r.status) for r in sent]
        seen.append((proc.returncode, proc.stdout, proc.stderr, bodies))
    assert seen[0] == seen[1]
    assert seen[0][0] == code and "Traceback" not in seen[0][2]
    if name == "rejected_key":
        assert seen[0][2] == "catcode: Authentication failed (401) — check ANTHROPIC_API_KEY\n"
    if name == "dropped":
        assert "Stream failed mid-response: the connection closed before the reply ended — try again" in seen[0][2]
