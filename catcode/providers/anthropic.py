"""``AnthropicProvider``: the ``LLMProvider`` over the official ``anthropic`` SDK.

Streams every call (text deltas reach ``on_text`` as they arrive), retries 408/409/429/5xx and connection
failures itself (``providers/retry.py``: the SDK client is built with ``max_retries=0`` so each retry can be
shown to the person — "overloaded, retrying in 2 s (attempt 2/4)" — through ``on_retry``), lays out
prompt-cache breakpoints so the byte prefix stays stable, and turns every failure into one readable
``ProviderError`` line.

(Over 250 lines: the request layout, the retry loop and the error wording are one seam with the SDK.)

The SDK is imported on first use, not at module import: it costs seconds, and ``catcode --version`` or an
idle prompt should not pay for it (``warm_up()`` lets the caller pay it early, in a background thread).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from catcode.errors import ProviderError
from catcode.log import get_logger
from catcode.messages import ContentBlock, Message, Role, TextBlock, ToolUseBlock
from catcode.providers.base import ChatOptions, ChatResponse, OnText, ToolSpec, Usage
from catcode.providers.retry import retry_delay, retry_notice, retryable
from catcode.text import shorten

log = get_logger(__name__)

PLACEHOLDER_API_KEY = "catcode-local-no-key"  # a local Anthropic-compatible server needs *a* key header
CACHE = {"type": "ephemeral"}
DETAIL_CHARS = 300  # of an error's detail in the one line a person sees
_MIDSTREAM_STATUS = {"overloaded_error": 529, "rate_limit_error": 429, "api_error": 500}


def build_request(messages: list[Message], system: str, tools: list[ToolSpec]) -> dict[str, Any]:
    """The ``system``/``messages``/``tools`` parameters of one request, with cache breakpoints.

    Per-request SYSTEM messages become system blocks after the base prompt. Breakpoints: the base system
    block (caches tools + static prompt), the last injected block, the last block of the last message —
    three at most, under the API's limit of four. Everything before a breakpoint is deterministic."""
    system_blocks: list[dict[str, Any]] = (
        [{"type": "text", "text": system, "cache_control": dict(CACHE)}] if system else []
    )
    injected = [{"type": "text", "text": m.text} for m in messages if m.role is Role.SYSTEM and m.text]
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
    """Talks to the Messages API (or a compatible server at ``base_url``).

    Keeps ``last_usage`` (the latest successful call), ``total_usage`` and ``calls`` (successful calls)."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None,
        base_url: str | None,
        max_retries: int = 4,
        timeout: float = 600.0,
        memory_model: str | None = None,
        http_client: Any = None,
        on_retry: Callable[[str], None] | None = None,
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
        self._api_key = api_key if api_key is not None else (PLACEHOLDER_API_KEY if base_url else None)
        self._timeout = timeout
        self._http_client = http_client
        self._client: Any = None
        self._lock = threading.Lock()

    def warm_up(self) -> None:
        """Import the SDK and build the client now (safe to call from a background thread)."""
        self._sdk_client()

    def _sdk_client(self) -> Any:
        with self._lock:
            if self._client is None:
                import anthropic  # deferred: importing the SDK takes seconds

                kwargs: dict[str, Any] = {
                    "max_retries": 0,  # retried in ``chat`` so that each retry can be shown
                    "timeout": anthropic.Timeout(self._timeout, connect=min(10.0, self._timeout)),
                }
                if self._api_key is not None:
                    kwargs["api_key"] = self._api_key
                if self.base_url:
                    kwargs["base_url"] = self.base_url
                if self._http_client is not None:
                    kwargs["http_client"] = self._http_client
                self._client = anthropic.Anthropic(**kwargs)
            return self._client

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
        client = self._sdk_client()
        model = self.model_for(options)
        params = build_request(messages, system, tools)
        extra = {"temperature": options.temperature} if options.temperature is not None else None
        attempt = 0
        while True:
            started, streaming, saw_stop = time.monotonic(), False, False
            try:
                with client.messages.stream(
                    model=model,
                    max_tokens=options.max_tokens,
                    extra_body=extra,
                    extra_headers={"x-stainless-retry-count": str(attempt)},  # the SDK's own telemetry header
                    **params,
                ) as s:
                    streaming = True
                    for event in s:
                        if event.type == "text" and on_text is not None and event.text:
                            on_text(event.text)
                        elif event.type == "message_stop":
                            saw_stop = True
                    final = s.get_final_message() if saw_stop else None
                break
            except KeyboardInterrupt:
                log.info("provider.interrupted", model=model, purpose=options.purpose)
                raise
            except Exception as err:
                if not streaming and attempt < self.max_retries and retryable(err):
                    attempt += 1
                    self._wait_before_retry(err, attempt, options.purpose)
                    continue
                error = self._error(err, streaming)
                log.warning(
                    "provider.failed", model=model, purpose=options.purpose, status=error.status, error=str(error)
                )
                raise error from err
        if final is None:  # a clean EOF before message_stop: the reply is incomplete
            error = ProviderError(
                "Stream failed mid-response: the connection closed before the reply ended — try again"
            )
            log.warning("provider.failed", model=model, purpose=options.purpose, status=None, error=str(error))
            raise error
        response = self._convert(final, model)
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

    def _convert(self, final: Any, model: str) -> ChatResponse:
        blocks: list[ContentBlock] = []
        for block in final.content:
            if block.type == "text" and block.text:  # an empty text block would make the next request invalid
                blocks.append(TextBlock(text=block.text))
            elif block.type == "tool_use":
                blocks.append(ToolUseBlock(id=block.id, name=block.name, input=dict(block.input or {})))
        u = final.usage
        usage = Usage(
            input_tokens=u.input_tokens or 0,
            output_tokens=u.output_tokens or 0,
            cache_read_input_tokens=u.cache_read_input_tokens or 0,
            cache_creation_input_tokens=u.cache_creation_input_tokens or 0,
        )
        return ChatResponse(blocks, final.stop_reason, usage, str(final.model or model))

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

    def _error(self, err: Exception, streaming: bool) -> ProviderError:
        """One readable line for any failure: HTTP status, connection, or a stream cut short."""
        import anthropic

        retries = self.max_retries
        if isinstance(err, anthropic.APIStatusError):
            detail = shorten(err.api_message or err.message, DETAIL_CHARS)
            if streaming:  # an SSE `event: error` arrives on a 200 response
                status = _MIDSTREAM_STATUS.get(str(err.type or ""))
                cause = shorten(f"{err.type}: {detail}" if err.type else detail, DETAIL_CHARS)
                return ProviderError(f"Stream failed mid-response: {cause} — try again", status=status)
            code = err.status_code
            if code == 529:
                msg = f"API overloaded (529) after {retries} retries — try again in a minute"
            elif code == 429:
                msg = f"Rate limited (429) after {retries} retries — wait a moment and try again"
            elif code == 401:
                msg = "Authentication failed (401) — check ANTHROPIC_API_KEY"
            elif code == 403:
                msg = f"Permission denied (403): {detail}"
            elif code == 400:
                msg = f"Bad request (400): {detail}"
            elif code == 404:
                msg = f"Not found (404): {detail} — check the model name and ANTHROPIC_BASE_URL"
            else:
                msg = f"API error ({code}): {detail}"
            return ProviderError(msg, status=code, retries=retries if code in (408, 409, 429) or code >= 500 else 0)
        where = self.base_url or "https://api.anthropic.com"
        if isinstance(err, anthropic.APITimeoutError):
            return ProviderError(f"Timed out talking to {where} after {retries} retries — try again", retries=retries)
        if isinstance(err, anthropic.APIConnectionError):
            return ProviderError(f"Cannot reach {where} — check your network or ANTHROPIC_BASE_URL", retries=retries)
        cause = shorten(f"{type(err).__name__}: {err}" if str(err) else type(err).__name__, DETAIL_CHARS)
        if streaming:  # e.g. httpx2.RemoteProtocolError when the connection drops mid-stream
            return ProviderError(f"Stream failed mid-response: {cause} — try again")
        return ProviderError(f"Request failed: {cause}")
