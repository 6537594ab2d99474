"""``/compact`` in the real REPL (issue 23 §3): on a small conversation it compacts when asked and reports
before → after with after smaller; on a single exchange it says exactly why it left it alone."""

from __future__ import annotations

import re

from tests.e2e.test_compaction_e2e import conversation_requests, is_summary, route_side_calls
from tests.fakes import FakeAnthropicServer, text

REPORT = re.compile(r"Compacted context: ([\d,]+) → ([\d,]+) tokens \(summary of (\d+) messages\)")


def test_compact_on_a_small_conversation_reports_a_smaller_after(
    spawn_catcode, fake_server: FakeAnthropicServer
) -> None:
    fake_server.responder = route_side_calls
    cat = spawn_catcode()
    cat.prompt()
    cat.say("/compact")
    cat.expect_text("Nothing to compact yet.")
    cat.prompt()
    fake_server.enqueue(text("The parser is in src/parse.py and " + "handles every token kind. " * 40))
    cat.say("where is the parser and what does it handle? " + "Tell me in detail. " * 30)
    cat.expect_text("handles every token kind.")
    cat.prompt()
    cat.say("/compact")
    cat.expect_text("Nothing compacted: the conversation is a single exchange, which /compact keeps as it is")
    cat.prompt()
    fake_server.enqueue(text("Tests are in tests/."))
    cat.say("and the tests?")
    cat.expect_text("Tests are in tests/.")
    cat.prompt()
    cat.say("/compact")
    cat.expect(REPORT.pattern)
    before, after, summarised = (int(g.replace(",", "")) for g in cat.child.match.groups())
    assert after < before and summarised == 2
    cat.prompt()
    assert [r for r in fake_server.requests() if is_summary(r)]
    fake_server.enqueue(text("Done."))
    cat.say("thanks")
    cat.expect_text("Done.")
    cat.prompt()
    last = conversation_requests(fake_server)[-1]
    assert "[Conversation Summary]" in last.all_text and "Tell me in detail." not in last.all_text
    assert cat.exit() == 0
