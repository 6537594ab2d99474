"""Issue 15 §9 in a real terminal: the prompt comes before the SDK is imported, and a message typed the instant
the prompt appears waits for the import in the background and is answered whole (figures: scripts/bench.py)."""

from __future__ import annotations

import re
from collections.abc import Callable

from tests.e2e.conftest import Catcode
from tests.e2e.test_repl import user_texts
from tests.fakes import FakeAnthropicServer, text

Spawn = Callable[..., Catcode]


def test_a_message_sent_at_once_is_answered(spawn_catcode: Spawn, fake_server: FakeAnthropicServer) -> None:
    fake_server.enqueue(text("Answered at once, every word."))
    cat = spawn_catcode(env={"PYTHONPROFILEIMPORTTIME": "1"})  # imports are reported on the pty
    cat.prompt()
    assert not re.search(r"\|\s+anthropic\s*$", cat.child.before, re.M)  # not imported before the prompt
    cat.say("hi")  # no wait: the SDK is still being imported in the background
    cat.expect_text("Answered at once, every word.")
    cat.prompt()
    assert re.search(r"\|\s+anthropic\s*\r?$", cat.output, re.M)
    assert user_texts(fake_server.requests()[0].messages) == ["hi"]
    assert cat.exit() == 0
