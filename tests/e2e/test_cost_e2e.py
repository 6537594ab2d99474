"""Issue 15 §6 in a real terminal: /cost in dollars from the price list, tokens only (and why) for an unknown
model, /model listing the known models and warning about an unknown id."""

from __future__ import annotations

from collections.abc import Callable

from tests.e2e.conftest import Catcode
from tests.fakes import FakeAnthropicServer, text

Spawn = Callable[..., Catcode]
USAGE = {"input_tokens": 10_000, "output_tokens": 1_000, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def test_cost_in_dollars_and_model_listing(spawn_catcode: Spawn, fake_server: FakeAnthropicServer) -> None:
    fake_server.enqueue(text("Priced.", usage=USAGE, model="claude-sonnet-5-5"), text("Unpriced.", usage=USAGE))
    cat = spawn_catcode("--model", "claude-sonnet-5-5")
    cat.prompt()
    cat.say("hi")
    cat.expect_text("Priced.")
    cat.prompt()
    cat.say("/cost")
    cat.expect_text("claude-sonnet-5-5: $0.0300")  # 10k × $2/M + 1k × $10/M
    cat.expect_text("session total: $0.0300")
    cat.prompt()
    cat.say("/model")
    cat.expect_text("Known models")
    cat.expect_text("claude-opus-5-5")
    cat.prompt()
    cat.say("/model claude-imaginary-1")
    cat.expect_text("Warning: 'claude-imaginary-1' is not a model catcode knows")
    cat.prompt()
    cat.say("hello")
    cat.expect_text("Unpriced.")
    cat.prompt()
    cat.say("/cost")
    cat.expect_text("claude-imaginary-1: tokens only")
    cat.expect_text("session total: no price known for claude-imaginary-1")
    cat.prompt()
    assert cat.exit() == 0
