"""``AnthropicProvider``: the ``LLMProvider`` over the Messages API — the Claude API's, and the same API as Amazon
Bedrock and Google Vertex AI serve it (their folders give it their ``Carrier``).

Streams every call (text deltas reach ``on_text`` as they arrive), retries 408/409/429/5xx and connection
failures itself (``providers/retry.py``, so that each retry can be shown to the person — "overloaded, retrying in
2 s (attempt 2/4)" — through ``on_retry``), lays out prompt-cache breakpoints so the byte prefix stays stable, and
turns every failure into one readable ``ProviderError`` line (``failures.py``).

Requests to the Claude API are carried by the lean client (``lean_client.py``: the standard library's HTTP,
milliseconds to import) wherever it covers the connection, else by the official SDK (``sdk_client.py``: seconds to
import; also what ``api_client: sdk`` chooses). Both take the same body and fail the same way; the wire tests hold
them to it. Bedrock and Vertex requests go through the SDK's own clients for them.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from catcode.conversation.messages import Message, Role
from catcode.errors import ProviderError
from catcode.log import get_logger
from catcode.providers.base import ChatOptions, ChatResponse, OnText, ToolSpec, Usage
from catcode.providers.failures import ApiFailure, Hints, NotCovered, provider_error
from catcode.providers.retry import retry_delay, retry_notice, retryable

if TYPE_CHECKING:
    from catcode.settings.config import Settings

# Any: request bodies are Messages API JSON; the SDK client and the httpx client it may take are third-party objects.

log = get_logger(__name__)

PLACEHOLDER_API_KEY = "catcode-local-no-key"  # a local Anthropic-compatible server needs *a* key header
CACHE = {"type": "ephemeral"}
API_CLIENTS = ("auto", "sdk")
"""``auto``: the lean client where it covers the connection, else the SDK; ``sdk``: always the SDK."""


class Carrier(Protocol):
    """What carries one streamed request to a platform: the lean client, or the SDK with a platform's client."""

    hints: Hints
    """What a failure line tells the person to check."""

    @property
    def where(self) -> str:
        """The endpoint a failure line names."""
        ...

    def warm_up(self, model: str) -> None:
        """Make the first request for ``model`` fast now (safe from a background thread)."""
        ...

    def stream(self, body: dict[str, Any], attempt: int, on_text: Callable[[str], None] | None) -> ChatResponse:
        """Send one streaming request; the whole reply. Raises ``ApiFailure``; Ctrl+C propagates."""
        ...


def build_request(messages: list[Message], system: str, tools: list[ToolSpec]) -> dict[str, Any]:
    """The ``system``/``messages``/``tools`` parameters of one request, with cache breakpoints.

    Per-request SYSTEM messages become system blocks after the base prompt. Breakpoints: the base system
    block (caches tools + static prompt), the last injected block, the last block of the last message —
    three at most, under the API's limit of four. Everything before a breakpoint is deterministic."""
    system_blocks: list[dict[str, Any]] = (
        [{"type": "text", "text": system, "cache_control": dict(CACHE)}] if system else []
    )
    injected: list[dict[str, Any]] = [
        {"type": "text", "text": m.text} for m in messages if m.role is Role.SYSTEM and m.text
    ]
    if injected:
        injected[-1]["cache_control"] = dict(CACHE)
    api_messages = [m.to_api() for m in messages if m.role is not Role.SYSTEM]
    if api_messages and api_messages[-1]["content"]:
        api_messages[-1]["content"][-1]["cache_control"] = dict(CACHE)
    request: dict[str, Any] = {"messages": api_messages}
    if system_blocks or injected:
        request["system"] = system_blocks + injected
    if tools:
        request["tools"] = list(tools)
    return request


class AnthropicProvider:
    """Talks to the Messages API: the Claude API (or a compatible server at ``base_url``), or whatever ``carrier``
    reaches (Bedrock, Vertex: the key, URL, HTTP client and ``api_client`` are then not used).

    Keeps ``last_usage`` (the latest successful call), ``total_usage`` and ``calls`` (successful calls)."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = 4,
        timeout: float = 600.0,
        memory_model: str | None = None,
        http_client: Any = None,
        on_retry: Callable[[str], None] | None = None,
        api_client: str = "auto",
        carrier: Carrier | None = None,
    ) -> None:
        self.model = model
        self.on_retry = on_retry  # told about each retry of a conversation request (not of memory work)
        self.usage_by_model: dict[str, Usage] = {}
        self.memory_model = memory_model
        self.max_retries = max_retries
        self.base_url = base_url
        self.last_usage = Usage()
        self.total_usage = Usage()
        self.calls = 0
        self._lock = threading.Lock()
        self._key = api_key if api_key is not None else (PLACEHOLDER_API_KEY if base_url else None)
        self._timeout = timeout
        self.client: Carrier = carrier or _client(api_client, self._key, base_url, timeout, http_client)
        """What carries the requests: a ``LeanClient`` or an ``SdkClient``."""

    @classmethod
    def for_session(
        cls,
        settings: Settings,
        env: Mapping[str, str],
        on_retry: Callable[[str], None] | None,
        **connection: Any,
    ) -> AnthropicProvider:
        """The provider of a session: the models the settings and Claude Code's variables choose
        (``model_choice.py``), the settings' retries and timeout; ``connection``: the ``carrier``, or the Claude
        API's ``api_key``, ``base_url`` and ``api_client``."""
        from catcode.providers.model_choice import conversation_model, memory_model

        return cls(
            conversation_model(settings, env),
            max_retries=settings.max_retries,
            timeout=settings.request_timeout,
            memory_model=memory_model(settings, env),
            on_retry=on_retry,
            **connection,
        )

    def warm_up(self) -> None:
        """Make the first request fast now (safe from a background thread): the SDK's import, or the lean
        client's first connection."""
        self.client.warm_up(self.model)

    def model_for(self, options: ChatOptions) -> str:
        """The model one call uses: explicit, else the memory model for memory/compaction work, else ours."""
        if options.model:
            return options.model
        if options.purpose in ("memory", "compact") and self.memory_model:
            return self.memory_model
        return self.model

    def chat(
        self, messages: list[Message], system: str, tools: list[ToolSpec], options: ChatOptions, on_text: OnText = None
    ) -> ChatResponse:
        """Stream one request; return the whole reply. Raises ``ProviderError``; Ctrl+C propagates.

        A failure before anything streamed is retried up to ``max_retries`` times (``retry.py``); a stream that
        fails midway is not (its text is already on screen)."""
        model = self.model_for(options)
        body: dict[str, Any] = {"max_tokens": options.max_tokens, **build_request(messages, system, tools)}
        body["model"] = model
        if options.temperature is not None:
            body["temperature"] = options.temperature
        body["stream"] = True
        attempt = 0
        while True:
            started = time.monotonic()
            try:
                response = self.client.stream(body, attempt, on_text)
                break
            except NotCovered as err:  # from now on the SDK carries this provider's requests
                log.info("provider.sdk_takes_over", reason=str(err))
                self.client = _client("sdk", self._key, self.base_url, self._timeout, None)
                continue
            except KeyboardInterrupt:
                log.info("provider.interrupted", model=model, purpose=options.purpose)
                raise
            except Exception as err:
                began = isinstance(err, ApiFailure) and err.began
                if not began and attempt < self.max_retries and retryable(err):
                    attempt += 1
                    self._wait_before_retry(err, attempt, options.purpose)
                    continue
                error = self._error(err)
                log.warning(
                    "provider.failed", model=model, purpose=options.purpose, status=error.status, error=str(error)
                )
                raise error from err
        self._record(response.usage, model, options.purpose, time.monotonic() - started)
        return response

    def _wait_before_retry(self, err: Exception, attempt: int, purpose: str) -> None:
        """Sleep before retry ``attempt`` (Ctrl+C interrupts it), telling ``on_retry`` for conversation calls."""
        delay = retry_delay(err, attempt)
        line = retry_notice(err, delay, attempt, self.max_retries)
        log.info("provider.retry", purpose=purpose, attempt=attempt, delay=round(delay, 3), reason=line)
        if purpose == "chat" and self.on_retry is not None:
            try:
                self.on_retry(line)
            except Exception:
                log.warning("retry_notice_failed", exc_info=True)
        time.sleep(delay)

    def _record(self, usage: Usage, model: str, purpose: str, seconds: float) -> None:
        with self._lock:  # memory work runs on background threads
            self.last_usage = usage
            self.total_usage.add(usage)
            self.usage_by_model.setdefault(model, Usage()).add(usage)
            self.calls += 1
        log.info(
            "provider.call",
            model=model,
            purpose=purpose,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_input_tokens=usage.cache_read_input_tokens,
            cache_creation_input_tokens=usage.cache_creation_input_tokens,
            duration_ms=round(seconds * 1000, 1),
        )

    def _error(self, err: Exception) -> ProviderError:
        """One readable line for any failure: HTTP status, connection, or a stream cut short."""
        return provider_error(err, where=self.client.where, retries=self.max_retries, hints=self.client.hints)


def _client(api_client: str, api_key: str | None, base_url: str | None, timeout: float, http_client: Any) -> Carrier:
    """The lean client where it covers the connection (and nothing asks for the SDK), else the SDK's."""
    from catcode.providers import lean_client

    if api_client == "auto" and http_client is None and lean_client.covers(base_url, os.environ):
        return lean_client.LeanClient(api_key=api_key, base_url=base_url, timeout=timeout)
    from catcode.providers.sdk_client import ClaudeApi, SdkClient

    return SdkClient(ClaudeApi(api_key=api_key, base_url=base_url, timeout=timeout, http_client=http_client))
