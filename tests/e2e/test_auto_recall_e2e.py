"""Per-turn recall with the real ``catcode`` against the fake Anthropic server: in the REPL (a pseudo-terminal: the
dim "recalled: …" line, ``/memory recalled``) and in ``-p --output-format stream-json`` (the ``system``/``recall``
event). Memories are files written by hand into the project's memory folder, as a person with an editor would."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from catcode.settings.paths import project_key
from tests.e2e.conftest import Catcode, catcode_argv
from tests.fakes import FakeAnthropicServer, text
from tests.in_process import run_catcode
from tests.slowness import bound

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


def test_a_fresh_print_mode_recalls_among_500_memories_with_default_settings(
    project: Path, fake_server: FakeAnthropicServer
) -> None:
    """Issue 36: 500 memories brought over from Claude Code (``catcode memory import PATH``), then a fresh
    ``catcode -p`` (a cold process, the search index never built) with no settings at all. The memory the question
    needs is listed by the index (its name and first sentence): its text is attached all the same."""
    teams = ["billing", "search", "mobile", "infra", "growth", "data", "support", "design", "security", "docs"]
    topics = ["standup time", "sprint goal", "on-call rota", "release notes", "code review", "test flakes",
              "dashboard", "budget", "hiring plan", "retro notes"]  # fmt: skip
    files = {}
    for i in range(499):
        team, topic = teams[i % 10], topics[(i // 10) % 10]
        body = f"# {team.title()} {topic}\n\nThe {team} team keeps its {topic} on wiki page {i}; ask in #{team} first."
        files[f"note-{i:03d}"] = f"---\nname: note-{i:03d}\ntype: project\n---\n{body}\n"
    why = "Rebase your branch onto main and open a pull request instead; the CI bot reverts force-pushes."
    files["git"] = f"---\nname: git\ntype: feedback\n---\n# Git\n\nNever force-push to main. {why}\n"
    env = fresh_env(project, fake_server)
    imported(project, {**env, "CATCODE_PERMISSION_MODE": "accept-edits"}, files)  # feedback: for all projects
    fake_server.enqueue(text("No: rebase and open a pull request."))
    first, recall = ask_fresh(project, env, fake_server, "should I force-push my branch to main?")
    index = json.dumps(first["system"], ensure_ascii=False) + json.dumps(first["messages"][1:])
    assert "## git\\nNever force-push to main." in index and why not in index  # the index: name and first sentence
    assert why in first["messages"][0]["content"][0]["text"]  # the text, on the question
    assert recall["skipped"] is False and recall["items"][0]["name"] == "git"


def test_a_fresh_print_mode_recalls_from_a_store_too_large_to_index_on_the_way(
    project: Path, fake_server: FakeAnthropicServer
) -> None:
    """Issue 36: more memories than a process indexes on the way to a search (2,000; at 100,000 it takes minutes,
    left to a process of its own) and no search index yet. A fresh ``catcode -p`` with default settings still
    attaches the memory the question needs — found in the store's catalogues — and says recall ran."""
    from catcode.memory.recall.recall import SYNC_BUDGET

    files = {
        f"note-{i:04d}": f"---\nname: note-{i:04d}\ntype: project\n---\nThe team keeps note {i} on wiki page {i}.\n"
        for i in range(SYNC_BUDGET + 100)
    }
    answer = "Deploys freeze from Thursday noon to Monday morning; ship hotfixes through the release captain."
    files["freeze"] = f"---\nname: deploy-freeze\ntype: project\n---\n{answer}\n"
    env = fresh_env(project, fake_server)
    imported(project, env, files)
    facts = Path(env["CATCODE_HOME"]) / "memory" / "projects" / project_key(project) / ".recall" / "facts.db"
    assert not facts.exists()  # cold: nothing indexed yet
    fake_server.enqueue(text("Not before Monday."))
    first, recall = ask_fresh(project, env, fake_server, "when does the deploy freeze start?")
    assert answer in first["messages"][0]["content"][0]["text"]
    assert recall["skipped"] is False and recall["items"][0]["name"] == "deploy-freeze"
    indexed_in_the_background(facts)  # before the folder goes


def fresh_env(project: Path, server: FakeAnthropicServer) -> dict[str, str]:
    """A home of its own beside ``project``, no settings, the fake server."""
    home = project.parent / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CATCODE_"))}
    env.update(HOME=str(home), CATCODE_HOME=str(home / ".cat-code"), ANTHROPIC_BASE_URL=server.base_url,
               ANTHROPIC_API_KEY="test-key")  # fmt: skip
    return env


def imported(project: Path, env: dict[str, str], files: dict[str, str]) -> None:
    """``files`` (name → text) written as Claude Code keeps memories, then ``catcode memory import`` of them."""
    claude = project.parent / "claude-memory"
    claude.mkdir()
    for name, body in files.items():
        (claude / f"{name}.md").write_text(body)
    done = subprocess.run([*catcode_argv(), "memory", "import", str(claude), "--yes"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr


def ask_fresh(
    project: Path, env: dict[str, str], server: FakeAnthropicServer, question: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A fresh ``catcode -p --output-format stream-json QUESTION``: the first request's body and the recall event."""
    argv = [*catcode_argv(), "-p", "--output-format", "stream-json", question]
    proc = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    (recall,) = [e for e in events if e.get("subtype") == "recall"]
    return server.requests()[0].body, recall


def indexed_in_the_background(facts: Path, timeout: float = 120.0) -> None:
    """Wait for the process a large store's first search started to have indexed every memory."""
    import sqlite3
    import time

    deadline = time.monotonic() + bound(timeout)
    while True:
        try:
            with closing(sqlite3.connect(f"{facts.as_uri()}?mode=ro", uri=True)) as db:
                if db.execute("SELECT 1 FROM meta WHERE key = 'mark:synced-memories'").fetchone():
                    return
        except sqlite3.Error:
            pass  # not there yet, or being created
        assert time.monotonic() < deadline, "the memories were not indexed in the background"
        time.sleep(0.1)
