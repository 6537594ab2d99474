"""``SdkClient``: one streamed Messages API request over an official ``anthropic`` SDK client.

The SDK client is the platform's (``SdkTarget``): ``anthropic.Anthropic`` for the Claude API (``ClaudeApi`` below —
the reference the lean client, ``lean_client.py``, is held to by the wire tests, and the carrier of whatever the lean
client does not cover: a proxy, an injected HTTP client, ``api_client: sdk``), ``anthropic.AnthropicBedrock`` and
``anthropic.AnthropicVertex`` for the clouds (``bedrock/``, ``vertex/``). The SDK is imported on first use: it costs
seconds. Its clients are built with ``max_retries=0`` (catcode retries, showing each retry), and its failures become
``failures.py``'s, so every platform shares one retry policy and one wording."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol

from catcode.conversation.messages import ContentBlock, TextBlock, ToolUseBlock
from catcode.providers.base import ChatResponse, Usage
from catcode.providers.failures import (
    CLAUDE_API,
    ApiConnectionFailure,
    ApiFailure,
    ApiStatusFailure,
    Hints,
    StreamFailure,
)

# Any: the anthropic SDK's clients, their options and their final message are third-party objects; request bodies
# are JSON.

CLAUDE_API_URL = "https://api.anthropic.com"


class SdkTarget(Protocol):
    """A platform as the SDK reaches it."""

    hints: Hints
    """What a failure line tells the person to check."""

    @property
    def where(self) -> str:
        """The endpoint a failure line names ("Cannot reach ...")."""
        ...

    def client(self, model: str) -> Any:
        """The SDK client that serves requests for ``model`` (built on first use; called under a lock)."""
        ...

    def model_id(self, model: str) -> str:
        """The id the platform knows ``model`` by (a Claude API name becomes the platform's own id)."""
        ...

    def failure(self, err: Exception, began: bool) -> ApiFailure | None:
        """This platform's reading of a failure the generic one would word poorly (missing credentials, its own
        stream exceptions; ``began``: the answer had started), or None."""
        ...


def sdk_options(timeout: float) -> dict[str, Any]:
    """The options every SDK client is built with: no retries of its own, ``timeout`` to read, 10 s to connect."""
    import anthropic  # deferred: importing the SDK takes seconds

    return {"max_retries": 0, "timeout": anthropic.Timeout(timeout, connect=min(10.0, timeout))}


def without_credentials() -> Any:
    """An HTTP client for the SDK that sends no credentials (``CLAUDE_CODE_SKIP_BEDROCK_AUTH``,
    ``CLAUDE_CODE_SKIP_VERTEX_AUTH``: a gateway adds its own): the SDK's platform clients always authenticate, so
    they are given a stand-in bearer token, which this client removes before a request leaves."""
    import anthropic

    def strip(request: Any) -> None:
        request.headers.pop("authorization", None)

    return anthropic.DefaultHttpxClient(event_hooks={"request": [strip]})


class ClaudeApi:
    """The Claude API through ``anthropic.Anthropic`` (an ``SdkTarget``)."""

    hints = CLAUDE_API

    def __init__(self, *, api_key: str | None, base_url: str | None, timeout: float, http_client: Any = None) -> None:
        self.where = base_url or CLAUDE_API_URL
        self._api_key = api_key
        self._base_url = base_url
        self._timeout = timeout
        self._http_client = http_client
        self._client: Any = None

    def client(self, model: str) -> Any:
        """One client for every model."""
        if self._client is None:
            import anthropic

            kwargs = sdk_options(self._timeout)
            if self._api_key is not None:
                kwargs["api_key"] = self._api_key
            if self._base_url:
                kwargs["base_url"] = self._base_url
            if self._http_client is not None:
                kwargs["http_client"] = self._http_client
            self._client = anthropic.Anthropic(**kwargs)
        return self._client

    def model_id(self, model: str) -> str:
        """Names as given."""
        return model

    def failure(self, err: Exception, began: bool) -> ApiFailure | None:
        """Nothing of its own."""
        return None


class SdkClient:
    """Streams Messages API requests through the SDK client of ``target``; thread-safe."""

    def __init__(self, target: SdkTarget) -> None:
        self.target = target
        self.hints = target.hints
        self._lock = threading.Lock()

    @property
    def where(self) -> str:
        """The target's endpoint."""
        return self.target.where

    def warm_up(self, model: str) -> None:
        """Import the SDK and build the client for ``model`` now (safe from a background thread); a failure is
        left for the request to meet and report."""
        try:
            self._client(model)
        except Exception:
            return

    def _client(self, model: str) -> Any:
        with self._lock:
            return self.target.client(model)

    def stream(self, body: dict[str, Any], attempt: int, on_text: Callable[[str], None] | None) -> ChatResponse:
        """Send one streaming request (``body`` as the API takes it); the whole reply. Raises ``ApiFailure``;
        anything ``on_text`` raises (Ctrl+C) propagates."""
        import anthropic
        import httpx2

        model = str(body.get("model", ""))
        params = {k: v for k, v in body.items() if k not in ("stream", "temperature")}
        extra = {"temperature": body["temperature"]} if "temperature" in body else None
        began, final = False, None
        try:
            params["model"] = self.target.model_id(model)
            client = self._client(model)
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
            platform_failure = self.target.failure(err, began)
            if platform_failure is not None:
                raise platform_failure from err
            headers = dict(err.response.headers) if err.response is not None else {}
            detail = err.api_message or _plain_message(err.body) or err.message
            raise ApiStatusFailure(err.status_code, detail, error_type=err.type, headers=headers, began=began) from err
        except anthropic.APIConnectionError as err:
            timed_out = isinstance(err, anthropic.APITimeoutError)
            raise ApiConnectionFailure(str(err), timed_out=timed_out, began=began) from err
        except httpx2.TransportError as err:  # raised as is while the stream is read (a dropped connection)
            timed_out = isinstance(err, httpx2.TimeoutException)
            raise ApiConnectionFailure(f"{type(err).__name__}: {err}", timed_out=timed_out, began=began) from err
        except ApiFailure:
            raise
        except Exception as err:
            platform_failure = self.target.failure(err, began)
            if platform_failure is not None:  # credentials that could not be had, a library missing...
                raise platform_failure from err
            if began:  # a broken event, or whatever on_text raised
                raise StreamFailure(err) from err
            raise
        if final is None:  # a clean end of the body before message_stop: the reply is incomplete
            raise ApiConnectionFailure("the stream ended before message_stop", began=True)
        return _convert(final, model)


def _plain_message(body: object) -> str | None:
    """The ``message`` of an error body that has no ``error`` object (Amazon's ``{"message": ...}``)."""
    message = body.get("message") if isinstance(body, dict) else None
    return message if isinstance(message, str) and message else None


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
