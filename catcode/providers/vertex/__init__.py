"""Claude on Google Vertex AI (``provider: vertex``, or Claude Code's ``CLAUDE_CODE_USE_VERTEX=1``), through the
SDK's ``anthropic.AnthropicVertex`` (the ``vertex`` extra: google-auth).

- ``options.py``: ``VertexOptions``, the ``vertex:`` settings and Claude Code's variables read into one place
  (region, per-model regions, project, endpoint, skipping auth).
- ``platform.py``: ``VertexPlatform``, the registry's entry: the check before the prompt, ``catcode doctor``'s lines,
  the provider.
- ``target.py``: ``VertexTarget``, what the SDK carrier needs: a client per region, Vertex's model ids, and
  credential failures in one line.
"""
