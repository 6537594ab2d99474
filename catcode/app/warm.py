"""Start-up without a prompt to hide behind: print mode and piped input warm the provider in the foreground.

(The cyclic garbage collector used to be paused during start-up imports; ``scripts/bench_speed_tricks.py`` showed
it no longer saved 20 ms on any path once the lean client carries requests, so it went.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from catcode.providers.base import LLMProvider


def warm_now(provider: LLMProvider) -> None:
    """Warm the provider in this thread (the SDK's import when the SDK carries the requests; the lean client only
    starts connecting): print mode and piped input have no prompt to hide the import behind."""
    if hasattr(provider, "warm_up"):
        provider.warm_up()
