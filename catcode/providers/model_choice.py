"""Which model a session asks for, with Claude Code's model variables honoured on every platform.

The conversation's model: catcode's own ``model`` setting when one of its layers sets it (a settings file,
``CATCODE_MODEL``, ``--model``), else ``ANTHROPIC_MODEL``, else the default — a Sonnet, so
``ANTHROPIC_DEFAULT_SONNET_MODEL`` when that pins one. Aliases (``sonnet``, ``opus``, ``haiku``) mean what
``ANTHROPIC_DEFAULT_*_MODEL`` pins, else the newest of the family (``pricing.model_alias``). Memory work runs on
``memory.model`` when set (an alias too), else on the conversation's model. The names are Claude API names or a
platform's own ids; each platform turns a Claude API name into its own id when it sends a request."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from catcode.providers.pricing import MODEL_FAMILIES, model_alias, pinned

if TYPE_CHECKING:
    from catcode.settings.config import Settings


def conversation_model(settings: Settings, env: Mapping[str, str]) -> str:
    """The model of the conversation (see the module docstring)."""
    if "model" in settings.model_fields_set:
        return model_alias(settings.model, env)
    if env.get("ANTHROPIC_MODEL"):
        return model_alias(env["ANTHROPIC_MODEL"], env)
    family = next((name for name in MODEL_FAMILIES if f"-{name}-" in settings.model), None)
    return (pinned(family, env) if family else None) or settings.model


def memory_model(settings: Settings, env: Mapping[str, str]) -> str | None:
    """The model of memory work (None: the conversation's)."""
    return model_alias(settings.memory.model, env) if settings.memory.model else None
