"""The Claude API, Anthropic's own (``provider: anthropic``, the default).

- ``platform.py``: ``ClaudeApiPlatform`` (the registry's entry): ``ANTHROPIC_API_KEY`` and ``ANTHROPIC_BASE_URL``,
  the check before the prompt, and the provider over the lean client (``providers/lean_client.py``) or the SDK.
"""
