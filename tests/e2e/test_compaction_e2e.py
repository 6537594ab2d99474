"""Context compaction in the real ``catcode`` REPL against the fake Anthropic server.

Tool-heavy sessions under a small ``compact.token_budget``: every request must stay valid for the API (the
fake server rejects an invalid history with 400, like the real one), compaction must keep requests bounded,
and the injected memory block must survive a compaction. Summary and memory calls are answered by
``server.responder`` (routed by their prompts); the conversation's own replies come from the queue."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from catcode.session.compaction import SUMMARY_MARKER, SUMMARY_SYSTEM
from tests.e2e.conftest import Catcode
from tests.fakes import FakeAnthropicServer, RecordedRequest, Step, text, tool_use

Spawn = Callable[..., Catcode]

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_MEMORY = REPO / ".cat-code.example" / "memory" / "user-prefers-vim.md"
BUDGET = 5000
DATA_LINES = 60  # data.txt: 60 lines of 70 characters, ~4.3 KB, ~1,100 tokens per tool output
SETTINGS = f"compact:\n  token_budget: {BUDGET}\n  summary_max_tokens: 400\n  tool_result_max_chars: 100000\n"
NOTICES = ("Compacted context", "Context snipped")


def write_data_file(project: Path) -> int:
    """A file of several KB the model reads over and over; returns its size."""
    lines = [f"{i:04d} " + hashlib.sha256(str(i).encode()).hexdigest() for i in range(DATA_LINES)]
    content = "\n".join(line.ljust(70, ".") for line in lines) + "\n"
    (project / "data.txt").write_text(content)
    return len(content)


def route_side_calls(body: dict[str, Any]) -> Step | None:
    """Answer compaction summaries and memory calls by their prompts; None leaves the request to the queue."""
    system = json.dumps(body.get("system") or "")
    first = json.dumps(body["messages"][0]["content"])
    if SUMMARY_SYSTEM[:40] in system:
        return text("## Goals and instructions\nInspect data.txt each turn.\n## Current state\nAll turns answered.")
    if "You are a memory extractor" in first or "You are a memory extractor" in system:
        return text("[]")
    if "You are a memory consolidator" in first or "You are a memory consolidator" in system:
        return text("[]")
    if "Summarise these earlier lines of a coding session" in first or "Summarise this coding session" in first:
        return text("- inspected data.txt")
    if "You are compiling the" in first:
        return text("- inspected data.txt")
    return None


def is_summary(rec: RecordedRequest) -> bool:
    """A compaction summary call."""
    return SUMMARY_SYSTEM[:40] in rec.system_text


def conversation_requests(server: FakeAnthropicServer) -> list[RecordedRequest]:
    """The session's own requests (they carry the tools; summary and memory calls carry none)."""
    return [r for r in server.requests() if r.body.get("tools")]


def run_tool_heavy_turns(cat: Catcode, server: FakeAnthropicServer, turns: int) -> None:
    """``turns`` turns, each reading data.txt (read_file or bash, alternately) and then answering."""
    for i in range(turns):
        call = (
            tool_use("read_file", {"path": "data.txt"}) if i % 2 == 0 else tool_use("bash", {"command": "cat data.txt"})
        )
        server.enqueue(call, text(f"Answer {i} is ready."))
        cat.say(f"turn {i}: look at data.txt again")
        cat.expect_text(f"Answer {i} is ready.")
        cat.prompt()


def assert_no_invalid_request(cat: Catcode, server: FakeAnthropicServer) -> None:
    """Nothing was rejected by the (fake) API and no 400 reached the person."""
    bad = [(r.step, r.status) for r in server.journal if r.step in ("invalid", "unscripted") or r.status == 400]
    assert not bad, [r.body for r in server.journal if r.step in ("invalid", "unscripted")][:1]
    assert "Bad request (400)" not in cat.output and "invalid_request_error" not in cat.output


def test_thirty_tool_heavy_turns_stay_valid_and_bounded(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path, home_dir: Path
) -> None:
    turns = 30
    data_size = write_data_file(project)
    (home_dir / ".cat-code").mkdir()
    (home_dir / ".cat-code" / "settings.yaml").write_text(SETTINGS)
    fake_server.responder = route_side_calls
    cat = spawn_catcode("--permission-mode", "bypass")
    cat.prompt()
    run_tool_heavy_turns(cat, fake_server, turns)
    assert cat.exit() == 0

    assert_no_invalid_request(cat, fake_server)
    fake_server.assert_complete()
    assert any(notice in cat.output for notice in NOTICES)
    summaries = [r for r in fake_server.requests() if is_summary(r)]
    assert len(summaries) >= 3, "the budget should force several summary rounds"

    requests = conversation_requests(fake_server)
    assert len(requests) == 2 * turns
    last = requests[-1]
    assert last.messages[-1]["content"][0]["type"] == "tool_result"  # the last turn's own tool output is kept
    assert data_size // 2 < len(last.messages[-1]["content"][0]["content"])
    assert any(SUMMARY_MARKER in json.dumps(m["content"]) for m in last.messages[:1])
    # Without compaction the last request would carry all 30 tool outputs (> 120 KB); it carries a few.
    sizes = [len(json.dumps(r.body)) for r in requests]
    assert sizes[-1] < turns * data_size / 5
    # Every request stays near the budget (~4 characters a token), however many turns came before.
    assert max(sizes) < 5 * BUDGET


def test_memory_block_survives_compaction(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, project: Path, home_dir: Path
) -> None:
    write_data_file(project)
    catcode_home = home_dir / ".cat-code"
    user_scope = catcode_home / "memory" / "users" / hashlib.sha256(b"tester").hexdigest()[:16]
    user_scope.mkdir(parents=True)
    shutil.copy(EXAMPLE_MEMORY, user_scope / EXAMPLE_MEMORY.name)
    (catcode_home / "settings.yaml").write_text(SETTINGS)
    fake_server.responder = route_side_calls
    cat = spawn_catcode(
        "--permission-mode", "bypass", env={"CATCODE_MEMORY_ENABLED": "true", "CATCODE_USER_ID": "tester"}
    )
    cat.prompt()
    run_tool_heavy_turns(cat, fake_server, 6)
    assert cat.exit() == 0

    assert_no_invalid_request(cat, fake_server)
    assert any(notice in cat.output for notice in NOTICES)
    journal = fake_server.requests()
    after_compaction = [
        next(r for r in journal[i + 1 :] if r.body.get("tools")) for i, r in enumerate(journal) if is_summary(r)
    ]
    assert after_compaction, "no compaction happened"
    for rec in after_compaction:
        assert SUMMARY_MARKER in json.dumps(rec.messages[0])
        assert "# Persistent Memory" in rec.system_text and "## user-prefers-vim" in rec.system_text
    extractions = [r for r in journal if "You are a memory extractor" in r.all_text]
    assert extractions, "compaction should flush the discarded turns to the memory pipeline"
