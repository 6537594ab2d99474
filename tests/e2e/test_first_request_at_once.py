"""Issue 27 in a real terminal: a message sent before the session behind the prompt is built loses nothing — its
request carries the memory index saved by an earlier session, the memory tools, and what the person's
UserPromptSubmit hook adds, exactly as a message sent once the session is warm does. A SessionStart hook reading a
FIFO holds the build, so the line is certainly sent before the session is ready."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import yaml

from tests.e2e.conftest import Catcode
from tests.e2e.test_memory_e2e import (
    EXPECT,
    MEMORY_ON,
    VIM,
    MemoryModel,
    adds,
    candidates,
    capture_done,
    chat,
    ended,
    memory_blocks,
    of_kind,
)
from tests.e2e.test_startup_e2e import logged, release
from tests.fakes import FakeAnthropicServer, text

Spawn = Callable[..., Catcode]
HOOK_MARK = "hook-context-5e1f"


def test_a_message_sent_before_the_session_is_built_carries_memory_tools_and_hooks(
    spawn_catcode: Spawn, fake_server: FakeAnthropicServer, home_dir: Path, tmp_path: Path
) -> None:
    model = MemoryModel(extract=candidates(VIM), consolidate=adds(VIM))
    fake_server.responder = model
    cat = spawn_catcode(env=MEMORY_ON)  # session 1 saves a memory at its end
    cat.prompt()
    chat(cat, fake_server, "I edit with vim.", "Noted.")
    chat(cat, fake_server, "And keep answers short.", "Understood.")
    cat.send("\x04")
    assert ended(cat) == 0
    assert capture_done(home_dir)[0].startswith("Memory: 1 added")
    model.extract = candidates()
    warm_chats = len(of_kind(fake_server, "chat"))

    gate = tmp_path / "gate"
    os.mkfifo(gate)
    hooks = {
        "SessionStart": [{"command": f"head -n1 '{gate}' >/dev/null"}],  # session 2's build waits for the gate
        "UserPromptSubmit": [{"command": f"echo {HOOK_MARK}"}],
    }
    (home_dir / ".cat-code" / "settings.yaml").write_text(yaml.safe_dump({"hooks": hooks}))
    fake_server.enqueue(text("Answered with everything."))
    cat = spawn_catcode(env=MEMORY_ON)
    cat.prompt()
    cat.say("hi")  # the session is not built: the line waits for it
    release(gate)
    cat.expect_text("Answered with everything.", timeout=EXPECT)
    cat.prompt()
    assert logged(home_dir, "line_waits_for_session")
    first = of_kind(fake_server, "chat")[warm_chats]
    (index,) = memory_blocks(first)
    assert "## user-prefers-vim\nUser edits with vim" in index  # the memory index, injected as when warm
    names = {tool["name"] for tool in first.body["tools"]}
    assert {"memory_read", "memory_write", "memory_search"} <= names
    assert HOOK_MARK in json.dumps(first.body["messages"][-1])  # the UserPromptSubmit hook ran on the first line
    cat.send("\x04")
    assert ended(cat) == 0
