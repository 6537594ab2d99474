"""Provider latency: time from ``AnthropicProvider.chat()`` to the first streamed text delta, in-process,
against ``FakeAnthropicServer`` (so it measures catcode + SDK overhead, not the network or the model)."""

from __future__ import annotations

import http.client
import json
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, "") and str(Path(__file__).resolve().parents[1]) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

import structlog.testing

from catcode.conversation.messages import Message
from catcode.providers.anthropic import AnthropicProvider
from catcode.providers.base import ChatOptions
from tests.fakes import FakeAnthropicServer, text

REPLY = "The quick brown fox jumps over the lazy dog. " * 4
SYSTEM = "You are catcode, a coding agent. " * 50


def _provider_first_byte(provider: AnthropicProvider) -> float:
    started = time.perf_counter()
    first: list[float] = []
    provider.chat(
        [Message.user("hello")], SYSTEM, [], ChatOptions(), lambda _: first or first.append(time.perf_counter())
    )
    return (first[0] - started) * 1000


def _raw_first_byte(port: int) -> float:
    """The naive baseline: one hand-written HTTP request on a fresh connection, until the first text delta."""
    body = {
        "model": "bench",
        "max_tokens": 64,
        "stream": True,
        "system": SYSTEM,
        "messages": [{"role": "user", "content": "hello"}],
    }
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", "/v1/messages", json.dumps(body), {"content-type": "application/json"})
    resp = conn.getresponse()
    while b"text_delta" not in resp.readline():
        pass
    elapsed = (time.perf_counter() - started) * 1000
    resp.read()
    conn.close()
    return elapsed


def bench_first_byte(runs: int = 7) -> dict[str, float]:
    """Median ms from ``chat()`` to the first ``on_text`` delta (warm client, keep-alive), the first call's
    figure (includes the first connection, and importing the SDK when it carries the requests), and the ratio to
    a raw HTTP request."""
    with FakeAnthropicServer() as server, structlog.testing.capture_logs():
        server.responder = lambda body: text(REPLY)
        provider = AnthropicProvider("bench-model", api_key=None, base_url=server.base_url, max_retries=0)
        cold = _provider_first_byte(provider)
        warm = statistics.median(_provider_first_byte(provider) for _ in range(runs))
        raw = statistics.median(_raw_first_byte(server.port) for _ in range(runs))
    return {
        "first_byte_ms": round(warm, 2),
        "cold_first_byte_ms": round(cold, 2),
        "raw_http_first_byte_ms": round(raw, 2),
        "ratio_vs_raw_http": round(warm / raw, 2) if raw else 0.0,
    }


if __name__ == "__main__":
    json.dump(bench_first_byte(), sys.stdout, indent=2)
    sys.stdout.write("\n")
