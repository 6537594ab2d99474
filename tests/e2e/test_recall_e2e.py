"""Recall across sessions with the real ``catcode`` in a pseudo-terminal against the fake Anthropic server.

Session 1 (CATCODE_TODAY=2026-11-30) works and exits with Ctrl+D: memory capture and ONE session summary into
the journal, after the exit. Session 2 (the next day) carries the "## Recent work" block in its first request,
compiles the completed day into its week in the background, and a ``memory_search`` call finds what session 1 left
behind.
The memory calls are answered by a responder that routes on the prompt text; chat turns come from the queue."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Catcode
from tests.e2e.test_memory_e2e import capture_done
from tests.fakes import FakeAnthropicServer, text, tool_use

Spawn = Callable[..., Catcode]

FACT = {
    "type": "project",
    "name": "parser-refactor",
    "description": "The parser refactor moves tokenizing into lexer.py",
    "content": "Tokenizing moves from parser.py into lexer.py; the zorblax flag guards the new path.",
}
SUMMARY = "- Split the tokenizer out of parser.py into lexer.py\n- Open: remove the zorblax flag once lexer tests pass"
WEEK = "- Week 49: the lexer split landed behind the zorblax flag"


def first_user_text(body: dict[str, Any]) -> str:
    content = (body.get("messages") or [{}])[0].get("content")
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content or [] if isinstance(block, dict))


def memory_calls(body: dict[str, Any]) -> Any:
    """Extraction, consolidation, the session summary and journal compiling; None for chat turns."""
    prompt = first_user_text(body)
    if prompt.startswith("You are a memory extractor"):
        return text(json.dumps({"candidates": [FACT]}))
    if prompt.startswith("You are a memory consolidator"):
        return text(json.dumps({"operations": [{"action": "add", "targetName": None, "entry": FACT}]}))
    if prompt.startswith("Summarise this coding session"):
        return text(SUMMARY)
    if prompt.startswith("You are compiling the"):
        return text(WEEK)
    return None


def chat_requests(server: FakeAnthropicServer, first_line: str) -> list[Any]:
    return [r for r in server.requests() if first_user_text(r.body) == first_line]


def wait_for_file(path: Path, timeout: float = 15.0) -> str:
    """Bounded poll for a file written by a background thread of the child."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} was never written"
        time.sleep(0.05)
    return path.read_text(encoding="utf-8")


def test_yesterdays_work_is_in_the_prompt_and_searchable(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    fake_server.responder = memory_calls
    memory_on = {"CATCODE_MEMORY_ENABLED": "true"}

    fake_server.enqueue(text("Split the tokenizer into lexer.py behind the zorblax flag."), text("Lexer tests next."))
    cat = spawn_catcode(env={**memory_on, "CATCODE_TODAY": "2026-11-30"})
    cat.prompt()
    cat.say("refactor the parser: move tokenizing into lexer.py")
    cat.expect_text("behind the zorblax flag.")
    cat.prompt()
    cat.say("good, what is left?")
    cat.expect_text("Lexer tests next.")
    cat.prompt()
    assert cat.exit() == 0
    said = capture_done(home_dir)  # after the exit, in a process of its own
    assert said[0].startswith("Memory: 1 added") and said[-1].startswith("Session summary saved to the journal")
    (project_scope,) = (home_dir / ".cat-code" / "memory" / "projects").iterdir()
    daily = (project_scope / "journal" / "daily" / "2026-11-30.md").read_text(encoding="utf-8")
    assert daily.startswith("# 2026-11-30\n\n## ") and daily.endswith(f"\n\n{SUMMARY}\n")

    fake_server.enqueue(
        tool_use("memory_search", {"query": "zorblax"}), text("The zorblax flag is the open thread; continuing.")
    )
    cat = spawn_catcode(env={**memory_on, "CATCODE_TODAY": "2026-12-01"})
    cat.prompt()
    cat.say("continue yesterday's refactor")
    cat.expect_text("continuing.")
    cat.prompt()
    weekly = wait_for_file(project_scope / "journal" / "weekly" / "2026-W49.md")  # compiled in the background
    assert weekly.endswith(f"# Week 2026-W49 (2026-11-30 to 2026-12-06)\n\n{WEEK}\n")
    assert cat.exit() == 0
    capture_done(home_dir)

    first, second = chat_requests(fake_server, "continue yesterday's refactor")
    assert "## Recent work" in first.system_text
    assert "Open: remove the zorblax flag once lexer tests pass" in first.system_text
    assert first.system_text.index("# Persistent Memory") < first.system_text.index("## Recent work")
    result = second.messages[-1]["content"][0]
    assert result["type"] == "tool_result" and not result.get("is_error")
    assert "summary 2026-11-30: Open: remove the zorblax flag once lexer tests pass" in result["content"]
    assert "memory parser-refactor, " in result["content"]
    # The first session's own turns are found too, each saying which session and turn (the date is the clock's).
    said = r"^session \d{4}-\d\d-\d\d turn 2: Split the tokenizer into lexer.py behind the zorblax flag\.$"
    assert re.search(said, result["content"], re.M)
    fake_server.assert_complete()
