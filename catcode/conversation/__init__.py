"""The conversation's data, below everything that sends, stores or shows it. Nothing here is imported eagerly.

- ``messages.py``: roles and content blocks (``Message``, ``TextBlock``, ``ToolUseBlock``...).
- ``transcript.py``: a conversation written out for a model to read (summaries, memory extraction).
- ``images.py``: pictures attached to a message (checked, sized, base64).
"""
