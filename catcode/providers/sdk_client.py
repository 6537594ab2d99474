"""``SdkClient``: one streamed Messages API request over the official ``anthropic`` SDK.

The reference the lean client (``lean_client.py``) is held to by the wire tests, and the carrier of whatever the
lean client does not cover (a proxy, an injected HTTP client, ``api_client: sdk``). The SDK is imported on first
use: it costs seconds. Its client is built with ``max_retries=0`` (catcode retries, showing each retry), and its
failures become ``failures.py``'s, so both clients share one retry policy and one wording."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from catcode.conversation.messages import ContentBlock, TextBlock, ToolUseBlock
from catcode.providers.base import ChatResponse, Usage
from catcode.providers.failures import ApiConnectionFailure, ApiStatusFailure, StreamFailure

# Any: the anthropic SDK's client and its final message are third-party objects; request bodies are JSON.


class SdkClient:
    """Streams Messages API requests through ``anthropic.Anthropic``; thread-safe."""

    def __init__(self, *, api_key: str | None, base_url: str | None, timeout: float, http_client: Any = None) -> None:
        self._api_key = api_key
        self._base_url = base_url
        self._timeout = timeout
        self._http_client = http_client
        self._client: Any = None
        self._lock = threading.Lock()

    def warm_up(self) -> None:
        """Import the SDK and build its client now (safe from a background thread)."""
        self._sdk()

    def _sdk(self) -> Any:
        with self._lock:
            if self._client is None:
                import anthropic  # deferred: importing the SDK takes seconds

                kwargs: dict[str, Any] = {
                    "max_retries": 0,  # retried by the provider so that each retry can be shown
                    "timeout": anthropic.Timeout(self._timeout, connect=min(10.0, self._timeout)),
                }
                if self._api_key is not None:
                    kwargs["api_key"] = self._api_key
                if self._base_url:
                    kwargs["base_url"] = self._base_url
                if self._http_client is not None:
                    kwargs["http_client"] = self._http_client
                self._client = anthropic.Anthropic(**kwargs)
            return self._client

    def stream(self, body: dict[str, Any], attempt: int, on_text: Callable[[str], None] | None) -> ChatResponse:
        """Send one streaming request (``body`` as the API takes it); the whole reply. Raises ``ApiFailure``;
        anything ``on_text`` raises (Ctrl+C) propagates."""
        import anthropic
        import httpx2

        client = self._sdk()
        params = {k: v for k, v in body.items() if k not in ("stream", "temperature")}
        extra = {"temperature": body["temperature"]} if "temperature" in body else None
        began, final = False, None
        try:
            with client.messages.stream(
                extra_body=extra,
                extra_headers={"x-stainless-retry-count": str(attempt)},  # the SDK's own header, as it retries
                **params,
            ) as s:
                began = True
                saw_stop = False
                for event in s:
                    if event.type == "text" and on_text is not None and event.text:
                        on_text(event.text)
                    elif event.type == "message_stop":
                        saw_stop = True
                final = s.get_final_message() if saw_stop else None
        except anthropic.APIStatusError as err:
            headers = dict(err.response.headers) if err.response is not None else {}
            detail = err.api_message or err.message
            raise ApiStatusFailure(err.status_code, detail, error_type=err.type, headers=headers, began=began) from err
        except anthropic.APIConnectionError as err:
            timed_out = isinstance(err, anthropic.APITimeoutError)
            raise ApiConnectionFailure(str(err), timed_out=timed_out, began=began) from err
        except httpx2.TransportError as err:  # raised as is while the stream is read (a dropped connection)
            timed_out = isinstance(err, httpx2.TimeoutException)
            raise ApiConnectionFailure(f"{type(err).__name__}: {err}", timed_out=timed_out, began=began) from err
        except Exception as err:
            if began:  # a broken event, or whatever on_text raised
                raise StreamFailure(err) from err
            raise
        if final is None:  # a clean end of the body before message_stop: the reply is incomplete
            raise ApiConnectionFailure("the stream ended before message_stop", began=True)
        return _convert(final, str(body.get("model", "")))


def _convert(final: Any, model: str) -> ChatResponse:
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
