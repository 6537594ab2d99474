"""Text made to fit on one line, for people, logs and prompts alike: ``flatten`` puts text on one line, ``shorten``
also cuts it to a length, ending in "…" (tool calls and errors on screen, tool-result previews in prompts, a
provider's error detail, a search echoed back)."""

from __future__ import annotations

ELLIPSIS = "…"


def flatten(text: str) -> str:
    """``text`` on one line: every run of whitespace (line breaks too) becomes one space, the ends are trimmed."""
    if text.isprintable() and "  " not in text and text == text.strip(" "):
        return text  # the common case, without splitting (injection flattens every description on every change)
    return " ".join(text.split())


def shorten(text: str, limit: int) -> str:
    """``text`` flattened and, when longer than ``limit`` characters, cut to ``limit`` ending in "…"."""
    flat = flatten(str(text))
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + ELLIPSIS
