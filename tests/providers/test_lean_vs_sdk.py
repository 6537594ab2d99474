"""The lean client and the official SDK, held to the same wire: every scenario runs through ``AnthropicProvider``
once with each client, each against a fresh ``FakeAnthropicServer`` (its prompt-cache figures depend on what it saw
before), and both must send the same requests (body, credentials, the headers that carry meaning) and come to the
same result (reply, deltas, usage, retry notices, the error line with its status and retries)."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catcode.conversation.messages import Message, Role, ToolResultBlock, ToolUseBlock
from catcode.errors import ProviderError
from catcode.providers.anthropic import AnthropicProvider
from catcode.providers.base import ChatOptions
from catcode.providers.lean_client import ANTHROPIC_VERSION, LeanClient
from catcode.providers.sdk_client import SdkClient
from tests.fakes import FakeAnthropicServer, drop_midstream, error_midstream, message, status, text, tool_use

BASH = {"name": "bash", "description": "Run a command.", "input_schema": {"type": "object", "properties": {}}}
MEANINGFUL = ("anthropic-version", "anthropic-beta", "content-type", "accept", "x-stainless-retry-count", "x-team")
Scenario = Callable[[AnthropicProvider, FakeAnthropicServer], Any]


@pytest.fixture(autouse=True)
def _no_ambient_anthropic_env(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_CUSTOM_HEADERS"):
        monkeypatch.delenv(name, raising=False)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)


def run(kind: str, scenario: Scenario, *, timeout: float = 600.0, max_retries: int = 2) -> dict[str, Any]:
    """What the person and the server saw when ``scenario`` ran with the ``kind`` client."""
    notices: list[str] = []
    with FakeAnthropicServer() as server:
        provider = AnthropicProvider(
            "claude-main",
            api_key="sk-ant-test-key",
            base_url=server.base_url,
            max_retries=max_retries,
            timeout=timeout,
            memory_model="claude-small",
            on_retry=notices.append,
            api_client=kind,
        )
        assert isinstance(provider.client, LeanClient if kind == "auto" else SdkClient)
        try:
            outcome: Any = scenario(provider, server)
        except ProviderError as err:
            outcome = ("error", str(err), err.status, err.retries)
        server.assert_complete()
        requests = [
            (r.path, r.body, r.status, r.step, r.credentials, {h: r.headers.get(h) for h in MEANINGFUL})
            for r in server.journal
        ]
        headers = [set(r.headers) for r in server.journal]
    return {"outcome": outcome, "requests": requests, "notices": notices, "headers": headers}


def same_on_the_wire(scenario: Scenario, **kwargs: Any) -> dict[str, Any]:
    lean, sdk = run("auto", scenario, **kwargs), run("sdk", scenario, **kwargs)
    assert lean["outcome"] == sdk["outcome"]
    assert lean["requests"] == sdk["requests"]
    assert lean["notices"] == sdk["notices"]
    for mine, theirs in zip(lean["headers"], sdk["headers"], strict=True):
        assert mine - theirs <= {"user-agent"}, "the lean client sends no header the SDK does not"
    return lean


def reply(response: Any, deltas: list[str] | None = None) -> tuple[Any, ...]:
    return (response.content, response.stop_reason, response.usage, response.model, deltas)


def chat(provider: AnthropicProvider, messages=None, tools=(), options=None, on_text=None):
    system = "You are catcode."
    return provider.chat(messages or [Message.user("hi")], system, list(tools), options or ChatOptions(), on_text)


def test_the_lean_client_sends_the_sdks_api_version():
    from anthropic._constants import ANTHROPIC_API_VERSION

    assert ANTHROPIC_VERSION == ANTHROPIC_API_VERSION


def test_streamed_text_and_usage():
    def scenario(provider, server):
        server.enqueue(text("Sure — the plan: read, edit, test. 完成 ✓ " * 3))
        deltas: list[str] = []
        return reply(chat(provider, on_text=deltas.append), deltas)

    seen = same_on_the_wire(scenario)
    assert seen["outcome"][0] and seen["requests"][0][4] == {"authorization": seen["requests"][0][4]["authorization"]}


def test_tool_calls_with_text_and_two_blocks():
    tool_input = {"command": "grep -rn 'def main' src/ | head", "timeout": 30, "env": {"A": ["x", "ÿ"]}}

    def scenario(provider, server):
        server.enqueue(
            tool_use("bash", tool_input, id="toolu_1", text_before="Looking."),
            message(
                [
                    {"type": "tool_use", "id": "toolu_2", "name": "bash", "input": {"command": "ls"}},
                    {"type": "tool_use", "id": "toolu_3", "name": "bash", "input": {}},
                ]
            ),
        )
        return [reply(chat(provider, tools=[BASH])), reply(chat(provider, tools=[BASH]))]

    same_on_the_wire(scenario)


@pytest.mark.parametrize("code", [429, 529, 500, 408])
def test_a_retried_failure_then_success(code):
    def scenario(provider, server):
        server.enqueue(status(code), text("recovered"))
        return reply(chat(provider))

    seen = same_on_the_wire(scenario)
    assert [r[5]["x-stainless-retry-count"] for r in seen["requests"]] == ["0", "1"] and len(seen["notices"]) == 1


@pytest.mark.parametrize("code", [529, 429, 500, 401, 403, 404])
def test_exhausted_or_final_failures_read_the_same(code):
    def scenario(provider, server):
        server.enqueue(*[status(code, "internal boom")] * (3 if code in (529, 429, 500) else 1))
        return reply(chat(provider))

    assert same_on_the_wire(scenario)["outcome"][0] == "error"


def test_the_server_saying_not_to_retry_is_heard():
    def scenario(provider, server):
        server.enqueue(dataclasses.replace(status(503), headers={"x-should-retry": "false"}))
        return reply(chat(provider))

    assert len(same_on_the_wire(scenario)["requests"]) == 1


def test_a_redirect_is_followed_by_the_sdk_from_then_on():
    def scenario(provider, server):
        moved = dataclasses.replace(status(308), headers={"location": f"{server.base_url}/v1/messages"})
        server.enqueue(moved, text("answered after the move"), text("and the next one"))
        return reply(chat(provider)), reply(chat(provider)), type(provider.client).__name__

    lean, sdk = run("auto", scenario), run("sdk", scenario)
    assert lean["outcome"] == sdk["outcome"] and lean["outcome"][2] == "SdkClient"
    assert [r[:5] for r in lean["requests"]] == [r[:5] for r in sdk["requests"]]


def test_an_invalid_history_is_a_bad_request():
    dangling = Message(role=Role.ASSISTANT, content=[ToolUseBlock(id="toolu_x", name="bash", input={})])
    same_on_the_wire(lambda provider, server: chat(provider, [Message.user("hi"), dangling, Message.user("and?")]))


def test_an_error_event_mid_stream():
    def scenario(provider, server):
        server.enqueue(error_midstream("Half an ans"))
        deltas: list[str] = []
        try:
            chat(provider, on_text=deltas.append)
        except ProviderError as err:
            return str(err), err.status, "".join(deltas)
        raise AssertionError("no error")

    outcome = same_on_the_wire(scenario)["outcome"]
    assert outcome == ("Stream failed mid-response: overloaded_error: Overloaded — try again", 529, "Half an ans")


def test_a_dropped_connection_then_the_next_call_works():
    def scenario(provider, server):
        server.enqueue(drop_midstream("cut"), text("fine again"))
        try:
            chat(provider)
        except ProviderError as err:
            first = str(err)
        return first, reply(chat(provider))

    outcome = same_on_the_wire(scenario)["outcome"]
    assert outcome[0] == "Stream failed mid-response: the connection closed before the reply ended — try again"


def test_whatever_breaks_a_stream_once_it_began_is_named():
    def scenario(provider, server):
        server.enqueue(text("some words"), text("next"))

        def broken(_: str) -> None:
            raise ValueError("the screen went away")

        try:
            chat(provider, on_text=broken)
        except ProviderError as err:
            return str(err), reply(chat(provider))
        raise AssertionError("no error")

    outcome = same_on_the_wire(scenario)["outcome"]
    assert outcome[0] == "Stream failed mid-response: ValueError: the screen went away — try again"


def test_a_stream_that_goes_quiet_and_a_server_that_never_answers_time_out():
    def scenario(provider, server):
        held, gate = threading.Event(), threading.Event()
        server.enqueue(text("a long answer", hold=held), text("never", gate=gate))
        lines = []
        for _ in range(2):
            try:
                chat(provider)
            except ProviderError as err:
                lines.append(str(err).replace(server.base_url, "<server>"))
        held.set()
        gate.set()
        return lines

    outcome = same_on_the_wire(scenario, timeout=0.4, max_retries=0)["outcome"]
    assert outcome == [
        "Stream failed mid-response: no data came for too long — try again",
        "Timed out talking to <server> after 0 retries — try again",
    ]


def test_options_models_cache_breakpoints_and_tool_results():
    def scenario(provider, server):
        server.enqueue(*[text("ok")] * 4)
        history = [
            Message.user("run it"),
            Message(role=Role.ASSISTANT, content=[ToolUseBlock(id="toolu_9", name="bash", input={"command": "ls"})]),
            Message(role=Role.USER, content=[ToolResultBlock(tool_use_id="toolu_9", content="a.py", is_error=False)]),
        ]
        hooks = [Message.system("# Persistent Memory\n- likes vim")]
        return [
            reply(chat(provider, history + hooks, tools=[BASH], options=ChatOptions(max_tokens=123))),
            reply(chat(provider, history + hooks, [BASH], ChatOptions(temperature=0.3, purpose="memory"))),
            reply(chat(provider, options=ChatOptions(purpose="compact"))),
            reply(chat(provider, options=ChatOptions(model="claude-explicit"))),
        ]

    seen = same_on_the_wire(scenario)
    assert seen["outcome"][1][2].cache_read_input_tokens > 0  # the second request reused the first one's prefix


def test_custom_headers_from_the_environment(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_CUSTOM_HEADERS", "X-Team: platform\nbroken line\nanthropic-beta: some-beta-2026")

    def scenario(provider, server):
        server.enqueue(text("ok"))
        return reply(chat(provider))

    request = same_on_the_wire(scenario)["requests"][0]
    assert request[5]["x-team"] == "platform" and request[5]["anthropic-beta"] == "some-beta-2026"


def test_an_unreachable_server():
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    lines = []
    for kind in ("auto", "sdk"):
        provider = AnthropicProvider("m", api_key="k", base_url=url, max_retries=0, api_client=kind)
        with pytest.raises(ProviderError) as caught:
            chat(provider)
        lines.append(str(caught.value))
    assert lines == [f"Cannot reach {url} — check your network or ANTHROPIC_BASE_URL"] * 2


# own budget: each example streams over real HTTP through both clients (~50 ms)
@settings(max_examples=8, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(answer=st.text(min_size=1, max_size=120).filter(str.strip))
def test_any_text_streams_the_same(answer):
    def scenario(provider, server):
        server.enqueue(text(answer))
        deltas: list[str] = []
        return reply(chat(provider, on_text=deltas.append), deltas)

    assert "".join(same_on_the_wire(scenario)["outcome"][4]) == answer


def test_a_kept_alive_connection_the_server_closed_is_replaced_without_a_retry():
    notices: list[str] = []
    with FakeAnthropicServer() as server:
        provider = AnthropicProvider("m", api_key="k", base_url=server.base_url, max_retries=0, on_retry=notices.append)
        server.enqueue(text("one"), text("two"))
        assert chat(provider).text == "one"
        server.wait_for_requests(1)
        assert server.drop_idle_connections() >= 1
        assert chat(provider).text == "two"
        server.assert_complete()
    assert notices == []


def test_a_request_right_after_warm_up_is_answered():
    with FakeAnthropicServer() as server:
        provider = AnthropicProvider("m", api_key="k", base_url=server.base_url)
        provider.warm_up()
        server.enqueue(text("at once"))
        assert chat(provider).text == "at once"
        server.assert_complete()


@pytest.mark.parametrize(
    ("base_url", "env", "lean"),
    [
        (None, {}, True),
        ("http://127.0.0.1:8080", {}, True),
        ("https://gateway.example.com/anthropic/", {}, True),
        (None, {"HTTPS_PROXY": "http://proxy:3128"}, False),
        (None, {"https_proxy": "http://proxy:3128", "NO_PROXY": "localhost,.anthropic.com"}, True),
        (None, {"ALL_PROXY": "socks5://proxy:1080"}, False),
        ("http://127.0.0.1:8080", {"HTTPS_PROXY": "http://proxy:3128"}, True),
        ("http://127.0.0.1:8080", {"HTTP_PROXY": "http://proxy:3128", "no_proxy": "*"}, True),
        ("http://user:secret@gateway:8080", {}, False),
        ("https://gateway.example.com/?key=1", {}, False),
        ("unix:///var/run/api.sock", {}, False),
    ],
)
def test_the_sdk_carries_what_the_lean_client_does_not_cover(monkeypatch, base_url, env, lean):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    provider = AnthropicProvider("m", api_key="k", base_url=base_url)
    assert isinstance(provider.client, LeanClient if lean else SdkClient)
    assert isinstance(AnthropicProvider("m", api_key="k", base_url=base_url, api_client="sdk").client, SdkClient)


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    """A self-signed certificate for 127.0.0.1 and its key (the openssl command line makes them)."""
    import shutil
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("no openssl command to make a test certificate")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    make = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert)]
    make += ["-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
    subprocess.run(make, check=True, capture_output=True)
    return cert, key


def test_tls_is_verified_as_the_sdk_verifies_it(monkeypatch, certificate):
    import ssl

    cert, key = certificate
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    seen = []
    with FakeAnthropicServer(tls=context) as server:
        server.responder = lambda body: text("over TLS")
        for trusted in (False, True):
            if trusted:
                monkeypatch.setenv("SSL_CERT_FILE", str(cert))
            for kind in ("auto", "sdk"):
                provider = AnthropicProvider("m", api_key="k", base_url=server.base_url, max_retries=0, api_client=kind)
                try:
                    seen.append((trusted, chat(provider).text))
                except ProviderError as err:
                    seen.append((trusted, str(err).replace(server.base_url, "<server>")))
    refused = "Cannot reach <server> — check your network or ANTHROPIC_BASE_URL"
    assert seen == [(False, refused), (False, refused), (True, "over TLS"), (True, "over TLS")]
