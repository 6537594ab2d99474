"""Model providers.

- ``base.py``: the ``LLMProvider`` protocol, ``ChatOptions``, ``ChatResponse``, ``Usage``.
- ``anthropic.py``: ``AnthropicProvider`` over the Messages API (streaming, retries, prompt caching), its requests
  carried by ``lean_client.py`` (the standard library's HTTP; reads ``message_stream.py``) or ``sdk_client.py``
  (the official SDK: the reference, and the carrier of what the lean client does not cover); ``failures.py`` and
  ``retry.py`` are the failures, their wording and the retry policy both share; ``access.py`` the key and URL.
- ``tokens.py``: counting a conversation's tokens and the model's context budget; ``pricing.py``: the models of
  ``catcode/data/models.toml``, their prices, aliases (``sonnet``) and what a session cost.
- ``scripted.py``: ``ScriptedProvider``, the test seam that replays queued responses.
"""
