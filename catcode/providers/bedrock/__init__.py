"""Claude on Amazon Bedrock (``provider: bedrock``, or Claude Code's ``CLAUDE_CODE_USE_BEDROCK=1``), through the
SDK's ``anthropic.AnthropicBedrock`` (the ``bedrock`` extra: boto3 and botocore).

- ``options.py``: ``BedrockOptions``, the ``bedrock:`` settings and Claude Code's variables read into one place
  (region, profile, endpoint, skipping auth).
- ``platform.py``: ``BedrockPlatform``, the registry's entry: the check before the prompt, ``catcode doctor``'s lines,
  the provider.
- ``target.py``: ``BedrockTarget``, what the SDK carrier needs: a client per region, Bedrock's model ids, and
  Bedrock's failures worded as the Claude API's.
"""
