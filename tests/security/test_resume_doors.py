"""Issue 22 §5: ``--resume ID`` with a space and an unknown id exits 2 like ``--resume=ID`` (never the last
session with the id sent as text), in print mode and in the REPL; and an assistant line with an empty text block in
history.jsonl no longer breaks every resume of its session (the fake server refuses empty blocks as the API does)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pexpect
import pytest

from tests.e2e.conftest import Catcode
from tests.e2e.test_memory_e2e import MEMORY_ON, MemoryModel
from tests.e2e.test_repl import user_texts
from tests.e2e.test_shell_input_e2e import run
from tests.fakes import FakeAnthropicServer, text
from tests.slowness import bound


def first_session(project: Path, env: dict, fake_server: FakeAnthropicServer) -> None:
    fake_server.responder = MemoryModel()
    fake_server.enqueue(text("Noted: blue."))
    assert run(project, env, "-p", "my favourite colour is blue").returncode == 0


@pytest.mark.parametrize("spelled", [["--resume", "not-a-session"], ["--resume=not-a-session"], ["-r", "zz9"]])
def test_an_unknown_id_exits_2_in_print_mode(
    project: Path, catcode_env: dict, fake_server: FakeAnthropicServer, spelled: list[str]
) -> None:
    env = {**catcode_env, **MEMORY_ON}
    first_session(project, env, fake_server)
    asked = len(fake_server.requests())
    proc = run(project, env, "-p", *spelled, "which colour?")
    wanted = spelled[-1].split("=")[-1]
    assert proc.returncode == 2
    assert proc.stderr == f"catcode: no session {wanted!r} in this project (catcode --resume lists them)\n"
    assert len(fake_server.requests()) == asked  # nothing was sent, least of all the id as a prompt


def test_an_unknown_id_exits_2_in_the_repl(
    spawn_catcode: Callable[..., Catcode], project: Path, catcode_env: dict, fake_server: FakeAnthropicServer
) -> None:
    first_session(project, {**catcode_env, **MEMORY_ON}, fake_server)
    asked = len(fake_server.requests())
    cat = spawn_catcode("--resume", "fix", "the", "bug", env=MEMORY_ON)
    cat.expect_text("No session 'fix' in this project")
    cat.child.expect(pexpect.EOF, timeout=bound(30))
    cat.child.close()
    assert cat.child.exitstatus == 2
    assert len(fake_server.requests()) == asked


def test_an_empty_text_block_in_history_no_longer_breaks_resume(
    project: Path, catcode_env: dict, fake_server: FakeAnthropicServer, home_dir: Path
) -> None:
    env = {**catcode_env, **MEMORY_ON}
    first_session(project, env, fake_server)
    (history,) = (home_dir / ".cat-code" / "memory" / "projects").glob("*/history.jsonl")
    lines = [json.loads(line) for line in history.read_text().splitlines()]
    for record in lines:
        if record.get("type") == "message" and record.get("role") == "assistant":
            record["content"] = [{"type": "text", "text": ""}, *record["content"], {"type": "text", "text": " "}]
    history.write_text("".join(json.dumps(record) + "\n" for record in lines))
    fake_server.enqueue(text("You said blue."))
    proc = run(project, env, "-p", "--continue", "which colour?")
    assert proc.returncode == 0 and proc.stdout == "You said blue.\n", proc.stderr
    sent = fake_server.requests()[-1].messages
    assert user_texts(sent) == ["my favourite colour is blue", "which colour?"]
    assert all(block.get("text", "x").strip() for message in sent for block in message["content"])
