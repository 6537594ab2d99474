"""Model providers.

- ``base.py``: the ``LLMProvider`` protocol, ``ChatOptions``, ``ChatResponse``, ``Usage``.
- ``registry.py``: the platforms, one line each (``PLATFORMS``), each a folder holding its ``Platform``:
  ``claude_api/`` (the Claude API, the default), ``bedrock/`` (Amazon Bedrock), ``vertex/`` (Google Vertex AI);
  which one a session uses (the ``provider`` setting, else ``CLAUDE_CODE_USE_BEDROCK`` / ``CLAUDE_CODE_USE_VERTEX``),
  and what ``catcode doctor`` and ``catcode config`` say about it.
- ``anthropic.py``: ``AnthropicProvider`` over the Messages API (streaming, retries, prompt caching), whichever
  platform serves it; its requests carried by ``lean_client.py`` (the standard library's HTTP, the Claude API only;
  reads ``message_stream.py``) or ``sdk_client.py`` (the official SDK's client of the platform: the reference, and
  the carrier of what the lean client does not cover); ``failures.py`` and ``retry.py`` are the failures, their
  wording and the retry policy all share.
- ``model_choice.py``: which model a session asks for (catcode's ``model`` setting, else ``ANTHROPIC_MODEL``, and
  the ``ANTHROPIC_DEFAULT_*_MODEL`` pins); ``pricing.py``: the models of ``catcode/data/models.toml``, their prices
  (a Bedrock or Vertex id priced as its Claude API name), aliases (``sonnet``) and what a session cost;
  ``tokens.py``: counting a conversation's tokens and the model's context budget.
- ``scripted.py``: ``ScriptedProvider``, the test seam that replays queued responses.
"""
