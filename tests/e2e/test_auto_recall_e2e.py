"""Per-turn recall with the real ``catcode`` against the fake Anthropic server: in the REPL (a pseudo-terminal: the
dim "recalled: …" line, ``/memory recalled``) and in ``-p --output-format stream-json`` (the ``system``/``recall``
event). Memories are files written by hand into the project's memory folder, as a person with an editor would."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from catcode.settings.paths import project_key
from tests.e2e.conftest import Catcode
from tests.fakes import FakeAnthropicServer, text
from tests.in_process import run_catcode

Spawn = Callable[..., Catcode]
QUESTION = "why does the billing API answer 422 when I send the amount?"
SETTINGS = (
    "memory:\n"
    "  max_injected_summaries: 2\n"
    # Generous here: a loaded test machine must not turn this test into a test of its own speed; the budget itself
    # is tested in tests/memory/test_auto_recall.py.
    "  auto_recall_timeout_ms: 5000\n"
)


def memory_file(name: str, description: str, content: str, day: str = "2026-01-01") -> str:
    return (
        f"---\nname: {name}\ndescription: {description}\nmetadata:\n  type: project\n  createdAt: {day}\n"
        f"  updatedAt: {day}\n---\n{content}\n"
    )


def seed(home: Path, project: Path) -> None:
    """Settings and a dozen project memories; the two newest (listed by the index) are not about billing."""
    cat_home = home / ".cat-code"
    folder = cat_home / "memory" / "projects" / project_key(project)
    folder.mkdir(parents=True)
    (cat_home / "settings.yaml").write_text(SETTINGS, encoding="utf-8")
    (folder / "api-gotcha.md").write_text(
        memory_file(
            "api-gotcha",
            "The billing API rejects amounts sent as floats",
            "The billing API rejects amounts given as floats: send integer cents (amount_cents) or it answers 422.",
        ),
        encoding="utf-8",
    )
    topics = ["office plants", "parking rules", "team lunch", "holiday calendar", "printer toner", "desk booking"]
    for i, topic in enumerate(topics * 2):
        text_ = f"The {topic} came up in meeting {i}; nothing was decided."
        day = f"2026-02-{i + 1:02d}"
        (folder / f"note-{i:02d}.md").write_text(memory_file(f"note-{i:02d}", f"About the {topic}", text_, day))


def user_content(body: dict[str, Any]) -> list[dict[str, Any]]:
    return body["messages"][0]["content"]


def test_print_mode_stream_json_reports_the_recall(project: Path, fake_server: FakeAnthropicServer) -> None:
    home = project.parent / "home"
    seed(home, project)
    fake_server.enqueue(text("Send integer cents."))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CATCODE_"))}
    env.update(
        HOME=str(home),
        CATCODE_HOME=str(home / ".cat-code"),
        ANTHROPIC_BASE_URL=fake_server.base_url,
        ANTHROPIC_API_KEY="test-key",
    )
    proc = run_catcode(["-p", "--output-format", "stream-json", QUESTION], env=env, cwd=project)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    (recall,) = [e for e in events if e.get("type") == "system" and e.get("subtype") == "recall"]
    assert [item["name"] for item in recall["items"]] == ["api-gotcha"]
    assert "integer cents" in recall["items"][0]["text"] and recall["chars"] > 0
    assert [e["type"] for e in events][-1] == "result"
    (request,) = fake_server.requests()
    content = user_content(request.body)
    assert content[0]["text"].startswith("<recalled-memory>") and "## api-gotcha" in content[0]["text"]
    assert content[-1]["text"] == QUESTION
    assert all("recalled-memory" not in block["text"] for block in request.body["system"])


def test_repl_shows_the_dim_line_and_memory_recalled(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path, project: Path
) -> None:
    seed(home_dir, project)
    fake_server.enqueue(text("Send integer cents, not floats."), text("Noted."))
    cat = spawn_catcode(env={"CATCODE_MEMORY_ENABLED": "true", "PAGER": "less", "LESS": ""})
    cat.prompt()
    cat.say(QUESTION)
    cat.expect_text("recalled: api-gotcha")
    cat.expect_text("Send integer cents, not floats.")
    cat.prompt()
    cat.send("\x0f")  # Ctrl+O: what was attached, in the pager
    cat.expect_text("<recalled-memory>")
    cat.expect_text("## api-gotcha (project memory)")
    cat.send("q")
    cat.prompt()
    cat.say("/memory recalled")
    cat.expect_text("## api-gotcha (memory, project, score")
    cat.expect_text("(amount_cents) or it answers 422.")
    cat.prompt()
    cat.say("and what about the desk booking?")
    cat.expect_text("Noted.")
    first, second = fake_server.requests()[:2]
    assert json.dumps(first.body["system"]) == json.dumps(second.body["system"])  # the cached prefix is stable
    assert user_content(second.body) == [
        {k: v for k, v in block.items() if k != "cache_control"} for block in user_content(first.body)
    ]
    assert "recalled: api-gotcha" in cat.screen()
