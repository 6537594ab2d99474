"""The headline flow: a short session in which the person stated something to remember is captured at exit
whatever its length; one that did not costs nothing and says its messages are kept; a background run still going
at exit is waited for by the capture, never raced; what the capture did is always said (at the next start)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from memory_helpers import exit_and_next_start

from catcode.conversation.messages import Message, ToolResultBlock
from catcode.memory.exit_capture import SAVING
from catcode.memory.pipeline.remember_cues import person_stated_something, states_something_to_remember
from catcode.providers.scripted import RecordedRequest, ScriptedProvider
from tests.memory.pipeline.test_service import VIM, consolidation, extraction, make_runtime

CORPUS = Path(__file__).resolve().parents[1] / "data" / "memory" / "short_sessions.jsonl"
KEPT = "2 new messages kept; memory runs from 4 — /memory saves them now"


def wait_for(condition, timeout: float = 10.0) -> bool:
    """Poll ``condition`` until it holds (no fixed sleep)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not condition():
        threading.Event().wait(0.01)
    return condition()


def corpus() -> list[dict]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def say_session(runtime, *texts: str) -> None:
    for text in texts:
        runtime.service.history.append(Message.user(text))
        runtime.service.history.append(Message.assistant("OK."))


def test_the_corpus_is_big_enough_half_and_half_in_both_languages() -> None:
    rows = corpus()
    assert len(rows) >= 40
    for lang in ("en", "zh"):
        assert sum(r["remember"] for r in rows if r["lang"] == lang) >= 10
        assert sum(not r["remember"] for r in rows if r["lang"] == lang) >= 10


def test_every_session_worth_remembering_is_recognised_and_no_other() -> None:
    misses = [r["id"] for r in corpus() if r["remember"] and not states_something_to_remember(r["messages"][0]["text"])]
    false_alarms = [
        r["id"] for r in corpus() if not r["remember"] and states_something_to_remember(r["messages"][0]["text"])
    ]
    assert (misses, false_alarms) == ([], [])


def test_only_what_the_person_typed_counts() -> None:
    rule = "never touch the tests directory"
    assert person_stated_something([Message.user("hi"), Message.user(rule)])
    assert not person_stated_something([Message.user("hi"), Message.assistant(rule)])
    tool_result = Message(role="user", content=[ToolResultBlock(tool_use_id="t1", content=rule)])
    assert not person_stated_something([tool_result])


@given(st.text(max_size=200))
def test_any_text_gets_an_answer(text: str) -> None:
    assert states_something_to_remember(text) in (True, False)


def test_the_headline_sentence_is_captured_at_exit_with_two_messages(tmp_path: Path) -> None:
    provider = ScriptedProvider(extraction(VIM), consolidation(VIM))
    runtime = make_runtime(tmp_path, provider)
    say_session(runtime, "use vim, never touch the tests directory")
    said = exit_and_next_start(runtime)
    assert said[0] == SAVING and said[1] == "Memory: 1 added, 0 updated — /memory list shows them"
    assert runtime.store.get("user-prefers-vim") is not None and runtime.service.pending() == 0
    provider.assert_complete()


def test_a_chinese_rule_is_captured_too(tmp_path: Path) -> None:
    provider = ScriptedProvider(extraction(VIM), consolidation(VIM))
    runtime = make_runtime(tmp_path, provider)
    say_session(runtime, "记住，我用 vim")
    said = exit_and_next_start(runtime)
    assert said[1].startswith("Memory: 1 added")
    provider.assert_complete()


def test_a_short_session_with_nothing_to_remember_costs_no_request_and_says_its_messages_are_kept(
    tmp_path: Path,
) -> None:
    runtime = make_runtime(tmp_path, ScriptedProvider())
    say_session(runtime, "what does this regex do: ^a+b$")
    said = exit_and_next_start(runtime)
    assert said == [KEPT] and runtime.service.pending() == 2
    assert runtime.provider.requests == []


def test_one_message_kept_is_singular(tmp_path: Path) -> None:
    runtime = make_runtime(tmp_path, ScriptedProvider())
    runtime.service.history.append(Message.user("hi"))
    said = exit_and_next_start(runtime)
    assert said == ["1 new message kept; memory runs from 4 — /memory saves them now"]


def test_a_long_session_is_captured_as_before_cue_or_not(tmp_path: Path) -> None:
    provider = ScriptedProvider(extraction(), consolidation())
    runtime = make_runtime(tmp_path, provider)
    say_session(runtime, "list files", "read main.py")
    said = exit_and_next_start(runtime)
    assert said == [SAVING, "Nothing new to remember."]


def test_a_background_run_at_exit_is_never_raced(tmp_path: Path) -> None:
    """Piped mode: a recovery started at launch still ran when the exit captured; they raced and "vim" was lost.
    Now the capture after the exit waits for the run (the pipeline's lock), then finds the lines processed: each
    line is reviewed once."""
    gate = threading.Event()

    def gated_extraction(request: RecordedRequest):
        gate.wait(10)
        return extraction(VIM)

    provider = ScriptedProvider(gated_extraction, consolidation(VIM))
    runtime = make_runtime(tmp_path, provider)
    say_session(runtime, "use vim, never touch the tests directory", "and always run ruff")
    assert runtime.service.start_background("recovery")
    assert wait_for(lambda: len(provider.requests) == 1)  # the recovery is waiting for the model
    said: list[str] = []
    exiting = threading.Thread(target=lambda: said.extend(exit_and_next_start(runtime)))
    exiting.start()
    gate.set()
    exiting.join(10)
    assert said == [SAVING, "Nothing new to remember: another run had already processed these messages."]
    assert runtime.store.get("user-prefers-vim") is not None and runtime.service.pending() == 0
    provider.assert_complete()
