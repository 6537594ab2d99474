"""Model providers.

- ``base.py``: the ``LLMProvider`` protocol, ``ChatOptions``, ``ChatResponse``, ``Usage``.
- ``anthropic.py``: ``AnthropicProvider`` over the official SDK (streaming, retries, prompt caching).
- ``scripted.py``: ``ScriptedProvider``, the test seam that replays queued responses.
"""
