"""How memory work asks the model: the seed's temperature for every memory call, the options of extraction and
consolidation (``memory_options``) and of the summaries (``SUMMARY_OPTIONS``: the session summary, the journal's
weekly and long-term compiles, the history summary), and ``ask``: one prompt, one call, the reply's text."""

from __future__ import annotations

from catcode.conversation.messages import Message
from catcode.providers.base import ChatOptions, LLMProvider
from catcode.settings.memory import MemoryConfig

TEMPERATURE = 0.3
"""The seed's temperature for every memory call."""
SUMMARY_OPTIONS = ChatOptions(max_tokens=1024, temperature=TEMPERATURE, purpose="memory")
"""Options of the summary calls (``purpose="memory"`` lets the provider use ``memory.model``)."""


def memory_options(config: MemoryConfig) -> ChatOptions:
    """Options of the extraction and consolidation calls: the seed's temperature, the memory model if one is set."""
    return ChatOptions(
        max_tokens=config.extract_max_tokens, temperature=TEMPERATURE, model=config.model, purpose="memory"
    )


def ask(provider: LLMProvider, prompt: str, options: ChatOptions = SUMMARY_OPTIONS) -> str:
    """The model's answer to ``prompt`` (one user message, no system prompt, no tools), stripped."""
    return provider.chat([Message.user(prompt)], "", [], options).text.strip()
