"""Issue 33 §4: ``--input-format stream-json`` holds each message to the cap piped text has (200,000 characters),
said in one line, through the real binary: one 30 MB line once became a 30 MB request and 327 MB of memory."""

from __future__ import annotations

import json
from pathlib import Path

from catcode.app.stdin_input import MAX_CHARS
from tests.e2e.test_print_mode import run_with_peak
from tests.fakes import FakeAnthropicServer, text


def line(content: str) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": content}}) + "\n"


def test_a_30_mb_stream_json_line_is_cut_at_the_cap(project: Path, fake_server: FakeAnthropicServer) -> None:
    fake_server.enqueue(text("first"), text("second"))
    piped = line("x" * 30_000_000) + line("and a short one")
    argv = ("-p", "--input-format", "stream-json", "--output-format", "stream-json")
    proc, peak_kib = run_with_peak(project, fake_server, *argv, stdin=piped)
    assert proc.returncode == 0, proc.stderr[-2000:]
    note = f"[stdin line 1 cut at {MAX_CHARS:,} characters; the rest was not sent]"
    assert proc.stderr.count("catcode: ") == 1 and f"catcode: {note}" in proc.stderr
    first, second = fake_server.requests()
    sent = first.body["messages"][0]["content"][0]["text"]
    assert sent == "x" * MAX_CHARS + "\n" + note
    assert second.body["messages"][-1]["content"][0]["text"] == "and a short one"
    assert peak_kib < 120 * 1024, peak_kib  # a few MB for the line (the whole run is about 60 MB), not 327
