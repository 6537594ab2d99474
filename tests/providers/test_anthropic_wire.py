"""``AnthropicProvider`` over real HTTP against ``FakeAnthropicServer``, with each client that can carry its
requests: the lean client (``auto``) and the official SDK (``sdk``); ``test_lean_vs_sdk.py`` holds them to the same
requests and results."""

from __future__ import annotations

import json
import socket

import pytest
import structlog
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catcode.conversation.messages import Message, Role, TextBlock, ToolResultBlock, ToolUseBlock
from catcode.errors import ProviderError
from catcode.providers.anthropic import AnthropicProvider, build_request
from catcode.providers.base import ChatOptions
from tests.fakes import FakeAnthropicServer, drop_midstream, error_midstream, status, text, tool_use

EPHEMERAL = {"type": "ephemeral"}
BASH = {"name": "bash", "description": "Run a command.", "input_schema": {"type": "object", "properties": {}}}


@pytest.fixture(autouse=True)
def _no_ambient_anthropic_env(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_CUSTOM_HEADERS"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def server():
    with FakeAnthropicServer() as srv:
        yield srv


@pytest.fixture
def fake(server):
    """The shared server, reset for each test (one server keeps the SDK's keep-alive pool warm)."""
    server.journal.clear()
    server.unscripted.clear()
    server.responder = None
    yield server
    server.assert_complete()


@pytest.fixture(scope="module", params=["auto", "sdk"])
def provider(server, request):
    return AnthropicProvider(
        "claude-main",
        api_key=None,
        base_url=server.base_url,
        max_retries=2,
        memory_model="claude-small",
        api_client=request.param,
    )


def chat(provider, messages=None, system="You are catcode.", tools=(), options=None, on_text=None):
    return provider.chat(messages or [Message.user("hi")], system, list(tools), options or ChatOptions(), on_text)


def test_streamed_text_arrives_in_order_and_equals_the_final_text(fake, provider):
    reply = "Sure — here is the plan: read the file, edit line 3, then run the tests. 完成 ✓"
    fake.enqueue(text(reply))
    deltas: list[str] = []
    response = chat(provider, on_text=deltas.append)
    assert len(deltas) > 1 and "".join(deltas) == reply == response.text
    assert response.stop_reason == "end_turn" and response.model == "claude-main"
    assert response.usage.output_tokens > 0 and response.usage.context_tokens > 0


def test_tool_use_input_is_assembled_from_json_chunks(fake, provider):
    tool_input = {"command": "grep -rn 'def main' src/ | head -20", "timeout": 30, "env": {"A": ["x", "ÿ"]}}
    fake.enqueue(tool_use("bash", tool_input, id="toolu_1", text_before="Looking."))
    response = chat(provider, tools=[BASH])
    assert response.content == [TextBlock(text="Looking."), ToolUseBlock(id="toolu_1", name="bash", input=tool_input)]
    assert response.stop_reason == "tool_use" and fake.journal[0].body["tools"] == [BASH]


@pytest.mark.parametrize("failure", [status(429, retry_after=0), status(529), status(500)], ids=["429", "529", "500"])
def test_retryable_errors_are_retried_then_succeed(fake, provider, failure):
    fake.enqueue(failure, text("recovered"))
    assert chat(provider).text == "recovered"
    assert [r.status for r in fake.journal] == [failure.status, 200]
    assert [r.headers["x-stainless-retry-count"] for r in fake.journal] == ["0", "1"]


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (529, "API overloaded (529) after 2 retries — try again in a minute"),
        (429, "Rate limited (429) after 2 retries — wait a moment and try again"),
        (500, "API error (500): internal boom"),
    ],
)
def test_exhausted_retries_become_one_readable_provider_error(fake, provider, code, expected):
    fake.enqueue(*[status(code, "internal boom")] * 3)
    with pytest.raises(ProviderError) as caught:
        chat(provider)
    assert str(caught.value) == expected and caught.value.status == code and caught.value.retries == 2
    assert len(fake.journal) == 3


def test_authentication_failure_is_not_retried(fake, provider):
    fake.enqueue(status(401, "invalid x-api-key"))
    with pytest.raises(ProviderError, match=r"^Authentication failed \(401\) — check ANTHROPIC_API_KEY$") as caught:
        chat(provider)
    assert caught.value.status == 401 and len(fake.journal) == 1


def test_midstream_error_event_becomes_provider_error_after_partial_text(fake, provider):
    fake.enqueue(error_midstream("Half an ans"))
    deltas: list[str] = []
    with pytest.raises(ProviderError, match=r"^Stream failed mid-response: overloaded_error: Overloaded — try again$"):
        chat(provider, on_text=deltas.append)
    assert "".join(deltas) == "Half an ans" and len(fake.journal) == 1


def test_dropped_connection_becomes_provider_error_and_the_next_call_works(fake, provider):
    fake.enqueue(drop_midstream("cut"), text("fine again"))
    with pytest.raises(ProviderError, match=r"^Stream failed mid-response: .+ — try again$") as caught:
        chat(provider)
    assert "\n" not in str(caught.value)
    assert chat(provider).text == "fine again"


def test_request_layout_keeps_the_cache_prefix_stable(fake, provider):
    fake.enqueue(text("one"), text("two"))
    history = [Message.user("first question")]
    hooks = [Message.system("# Persistent Memory\n- likes vim"), Message.system("# Skills\n- deploy")]
    chat(provider, history + hooks, tools=[BASH])
    history += [Message.assistant("one"), Message.user("second question")]
    second = chat(provider, history + hooks, tools=[BASH])
    body = fake.journal[-1].body
    assert body["system"] == [
        {"type": "text", "text": "You are catcode.", "cache_control": EPHEMERAL},
        {"type": "text", "text": "# Persistent Memory\n- likes vim"},
        {"type": "text", "text": "# Skills\n- deploy", "cache_control": EPHEMERAL},
    ]
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][-1]["content"][-1] == {
        "type": "text",
        "text": "second question",
        "cache_control": EPHEMERAL,
    }
    assert all("cache_control" not in b for m in body["messages"][:-1] for b in m["content"])
    first_prefix = json.dumps(fake.journal[0].body["system"]) + json.dumps(fake.journal[0].body["tools"])
    assert first_prefix == json.dumps(body["system"]) + json.dumps(body["tools"])
    assert second.usage.cache_read_input_tokens > 0  # the fake saw the same system prefix before


def test_temperature_max_tokens_and_model_choice(fake, provider):
    fake.enqueue(*[text("ok")] * 4)
    chat(provider, options=ChatOptions(max_tokens=123))
    chat(provider, options=ChatOptions(temperature=0.3, purpose="memory"))
    chat(provider, options=ChatOptions(purpose="compact"))
    chat(provider, options=ChatOptions(model="claude-explicit", purpose="memory"))
    bodies = [r.body for r in fake.journal]
    assert "temperature" not in bodies[0] and bodies[0]["max_tokens"] == 123 and bodies[0]["model"] == "claude-main"
    assert bodies[1]["temperature"] == 0.3 and bodies[1]["model"] == "claude-small"
    assert [b["model"] for b in bodies[2:]] == ["claude-small", "claude-explicit"]


def test_invalid_history_is_rejected_with_bad_request(fake, provider):
    dangling = Message(role=Role.ASSISTANT, content=[ToolUseBlock(id="toolu_x", name="bash", input={})])
    with pytest.raises(ProviderError, match=r"^Bad request \(400\): .*toolu_x") as caught:
        chat(provider, [Message.user("hi"), dangling, Message.user("and?")])
    assert caught.value.status == 400 and len(fake.journal) == 1


def test_tool_results_round_trip_and_usage_is_recorded(fake, server):
    provider = AnthropicProvider("claude-main", api_key="sk-test-secret", base_url=server.base_url, max_retries=0)
    fake.enqueue(text("done"))
    history = [
        Message.user("run it"),
        Message(role=Role.ASSISTANT, content=[ToolUseBlock(id="toolu_9", name="bash", input={"command": "ls"})]),
        Message(role=Role.USER, content=[ToolResultBlock(tool_use_id="toolu_9", content="a.py", is_error=False)]),
    ]
    with structlog.testing.capture_logs() as logs:
        response = chat(provider, history)
    assert response.text == "done" and provider.calls == 1 and provider.last_usage == response.usage
    assert provider.total_usage.output_tokens == response.usage.output_tokens
    call = next(e for e in logs if e["event"] == "provider.call")
    assert call["model"] == "claude-main" and call["purpose"] == "chat" and "duration_ms" in call
    assert "sk-test-secret" not in repr(logs)


def test_keyboard_interrupt_propagates_unchanged(fake, provider):
    fake.enqueue(text("a long streamed answer that the user interrupts"), text("next"))

    def interrupt(_: str) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        chat(provider, on_text=interrupt)
    assert chat(provider).text == "next"


def test_unreachable_server_says_so(fake):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    provider = AnthropicProvider("claude-main", api_key="k", base_url=url, max_retries=0)
    with pytest.raises(ProviderError, match=rf"^Cannot reach {url} — check your network or ANTHROPIC_BASE_URL$"):
        chat(provider)


# own budget: each example streams over real HTTP through the SDK
@settings(max_examples=12, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reply=st.text(min_size=1, max_size=200).filter(str.strip))
def test_any_text_survives_the_stream(server, provider, reply):
    server.enqueue(text(reply))
    deltas: list[str] = []
    assert chat(provider, on_text=deltas.append).text == reply == "".join(deltas)


history_items = st.lists(
    st.sampled_from(["user", "assistant", "system"]).map(lambda r: Message(role=Role(r), content=[TextBlock(text=r)])),
    max_size=12,
)


@given(messages=history_items, system=st.sampled_from(["", "base prompt"]))
def test_build_request_never_exceeds_four_breakpoints_or_sends_system_messages(messages, system):
    request = build_request(messages, system, [BASH])
    blocks = request.get("system", []) + [b for m in request["messages"] for b in m["content"]]
    assert sum("cache_control" in b for b in blocks) <= 3
    assert all(m["role"] != "system" for m in request["messages"])
    injected = [m.text for m in messages if m.role is Role.SYSTEM]
    assert [b["text"] for b in request.get("system", [])] == ([system] if system else []) + injected
