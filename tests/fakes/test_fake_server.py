"""Self-tests of the fake Messages API, over raw HTTP (stdlib ``http.client``, no SDK)."""

from __future__ import annotations

import http.client
import json
import threading
import time
from typing import Any

import pytest

from tests.fakes import (
    NO_SCRIPT,
    FakeAnthropicServer,
    drop_midstream,
    error_midstream,
    status,
    text,
    tool_use,
    validation_error,
)
from tests.slowness import bound

HELLO = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}


@pytest.fixture
def server():
    with FakeAnthropicServer() as srv:
        yield srv


def post(conn: http.client.HTTPConnection, body: dict[str, Any], path: str = "/v1/messages", **headers: str):
    conn.request("POST", path, json.dumps(body), {"content-type": "application/json", **headers})
    resp = conn.getresponse()
    return resp, resp.read()


def sse_events(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for chunk in raw.decode().strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def streamed_text(raw: bytes) -> str:
    return "".join(d["delta"].get("text", "") for n, d in sse_events(raw) if n == "content_block_delta")


def test_stream_has_the_real_event_sequence_and_chunked_deltas(server):
    server.enqueue(tool_use("bash", {"command": "ls -la", "n": [1, 2]}, text_before="Let me look at that."))
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=bound(5))
    resp, raw = post(conn, {**HELLO, "stream": True})
    assert resp.status == 200 and resp.getheader("transfer-encoding") == "chunked"
    events = sse_events(raw)
    names = [name for name, _ in events if name != "ping"]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    texts = [d["delta"]["text"] for n, d in events if n == "content_block_delta" and d["delta"]["type"] == "text_delta"]
    parts = [d["delta"]["partial_json"] for n, d in events if d.get("delta", {}).get("type") == "input_json_delta"]
    assert len(texts) > 1 and "".join(texts) == "Let me look at that."
    assert len(parts) > 1 and json.loads("".join(parts)) == {"command": "ls -la", "n": [1, 2]}
    delta = next(d for n, d in events if n == "message_delta")
    assert delta["delta"]["stop_reason"] == "tool_use"
    assert set(delta["usage"]) >= {"input_tokens", "output_tokens", "cache_read_input_tokens"}


def test_many_requests_share_one_keep_alive_connection(server):
    server.enqueue(text("one"), text("two"), text("three"))
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=bound(5))
    _, first = post(conn, {**HELLO, "stream": True})
    sock = conn.sock
    _, second = post(conn, HELLO)
    _, third = post(conn, {**HELLO, "stream": True})
    assert streamed_text(first) == "one" and streamed_text(third) == "three" and conn.sock is sock
    assert json.loads(second)["content"] == [{"type": "text", "text": "two"}]
    assert json.loads(second)["usage"]["output_tokens"] > 0


def test_errors_have_the_api_shape_and_tiny_retry_after(server):
    server.enqueue(status(429, retry_after=0), status(401, "invalid x-api-key"))
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=bound(5))
    resp, raw = post(conn, HELLO)
    assert resp.status == 429 and float(resp.getheader("retry-after-ms")) <= 5 and resp.getheader("retry-after") == "0"
    assert json.loads(raw)["error"]["type"] == "rate_limit_error"
    resp, raw = post(conn, HELLO)
    assert resp.status == 401 and resp.getheader("retry-after-ms") is None
    assert json.loads(raw)["error"] == {"type": "authentication_error", "message": "invalid x-api-key"}


def test_midstream_error_event_and_dropped_connection(server):
    server.enqueue(error_midstream("partial"), drop_midstream("partial"))
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=bound(5))
    _, raw = post(conn, {**HELLO, "stream": True})
    assert sse_events(raw)[-1] == ("error", {**sse_events(raw)[-1][1], "type": "error"})
    assert sse_events(raw)[-1][1]["error"]["type"] == "overloaded_error"
    conn.request("POST", "/v1/messages", json.dumps({**HELLO, "stream": True}))
    with pytest.raises(http.client.IncompleteRead):
        conn.getresponse().read()


def test_unscripted_request_fails_loudly_and_is_recorded(server):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=bound(5))
    resp, raw = post(conn, HELLO, **{"x-api-key": "sk-secret", "anthropic-version": "2023-06-01"})
    assert resp.status == 400 and NO_SCRIPT in json.loads(raw)["error"]["message"]
    (rec,) = server.journal
    assert rec.step == "unscripted" and "x-api-key" not in rec.headers and rec.headers["anthropic-version"]
    with pytest.raises(AssertionError, match="no scripted response"):
        server.assert_complete()


def test_responder_is_consulted_before_the_queue(server):
    server.responder = lambda body: text("memory reply") if "memory extractor" in json.dumps(body) else None
    server.enqueue(text("queued reply"))
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=bound(5))
    body = {**HELLO, "system": "You are a memory extractor."}
    assert json.loads(post(conn, body)[1])["content"][0]["text"] == "memory reply"
    assert json.loads(post(conn, HELLO)[1])["content"][0]["text"] == "queued reply"
    server.assert_complete()


def test_gate_holds_the_answer_until_set_and_close_is_prompt(server):
    gate = threading.Event()
    server.enqueue(text("late", gate=gate), text("never", gate=threading.Event()))
    results: list[bytes] = []
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=bound(5))
    worker = threading.Thread(target=lambda: results.append(post(conn, HELLO)[1]))
    worker.start()
    assert server.wait_for_requests(1)[0].status == 0 and not results
    gate.set()
    worker.join(5)
    assert b"late" in results[0] and server.journal[0].status == 200
    other = http.client.HTTPConnection("127.0.0.1", server.port, timeout=bound(5))

    def cut_off_by_close() -> None:
        with pytest.raises(OSError):
            post(other, HELLO)

    threading.Thread(target=cut_off_by_close, daemon=True).start()
    server.wait_for_requests(2)
    started = time.monotonic()
    server.close()
    assert time.monotonic() - started < 2


def test_wait_for_requests_fails_loudly_on_timeout(server):
    with pytest.raises(AssertionError, match="waited"):
        server.wait_for_requests(1, timeout=0.05)


def test_simulated_prompt_cache(server):
    server.enqueue(text("a"), text("b"))
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=bound(5))
    cached = {**HELLO, "system": [{"type": "text", "text": "x" * 400, "cache_control": {"type": "ephemeral"}}]}
    first = json.loads(post(conn, cached)[1])["usage"]
    second = json.loads(post(conn, cached)[1])["usage"]
    assert first["cache_creation_input_tokens"] > 0 and first["cache_read_input_tokens"] == 0
    assert second["cache_read_input_tokens"] == first["cache_creation_input_tokens"]


def _msgs(*pairs: tuple[str, Any]) -> dict[str, Any]:
    return {**HELLO, "messages": [{"role": r, "content": c} for r, c in pairs]}


USE = [{"type": "tool_use", "id": "t1", "name": "bash", "input": {}}]
RESULT = [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]
CC = {"type": "text", "text": "s", "cache_control": {"type": "ephemeral"}}


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (_msgs(), "at least one message"),
        (_msgs(("assistant", "hi")), "first message"),
        (_msgs(("user", "a"), ("user", "b")), "alternate"),
        (_msgs(("user", "a"), ("assistant", [])), "non-empty content"),
        (_msgs(("user", "a"), ("assistant", [{"type": "text", "text": " "}])), "non-whitespace"),
        (_msgs(("user", "a"), ("assistant", USE), ("user", "no result")), "without `tool_result`"),
        (_msgs(("user", "a"), ("assistant", USE)), "without `tool_result`"),
        (_msgs(("user", RESULT)), "unexpected `tool_use_id`"),
        (_msgs(("user", "a"), ("system", "s")), "role"),
        ({**_msgs(("user", "a")), "system": [CC] * 5}, "maximum of 4"),
    ],
)
def test_invalid_histories_are_rejected_like_the_real_api(body, needle):
    assert needle in (validation_error(body) or "")


def test_a_valid_tool_exchange_passes_and_invalid_gets_400_over_http(server):
    assert validation_error(_msgs(("user", "a"), ("assistant", USE), ("user", RESULT), ("assistant", "done"))) is None
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=bound(5))
    resp, raw = post(conn, _msgs(("user", "a"), ("user", "b")))
    assert resp.status == 400 and json.loads(raw)["error"]["type"] == "invalid_request_error"
    assert server.journal[0].step == "invalid" and server.pending == 0


def test_system_messages_between_the_others_need_their_beta(server):
    body = {**HELLO, "messages": [*HELLO["messages"], {"role": "system", "content": "Agents: ..."}]}
    assert validation_error(body) == 'messages.1.role: Input should be "user" or "assistant"'
    assert validation_error(body, "claude-code-20250219,mid-conversation-system-2026-04-07") is None
    first = {**HELLO, "messages": [{"role": "system", "content": "x"}, *HELLO["messages"]]}
    assert validation_error(first, "mid-conversation-system-2026-04-07") is not None  # never the first message


def test_credentials_are_recorded_as_digests_only(server):
    server.enqueue(text("ok"))
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=bound(5))
    post(conn, HELLO, authorization="Bearer sk-ant-secret-value")
    (rec,) = server.journal
    assert "authorization" not in rec.headers and "sk-ant-secret-value" not in repr(rec)
    assert rec.credentials["authorization"].startswith("sha256:") and len(rec.credentials["authorization"]) == 19
