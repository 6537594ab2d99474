"""Print mode and piped input warm the provider in the foreground (``catcode.app.warm``)."""

from __future__ import annotations

from catcode.app.warm import warm_now


class Provider:
    def __init__(self) -> None:
        self.warmed = 0

    def warm_up(self) -> None:
        self.warmed += 1


def test_warm_now_warms_a_provider_that_can_be_warmed() -> None:
    provider = Provider()
    warm_now(provider)
    assert provider.warmed == 1


def test_warm_now_leaves_a_provider_without_warm_up_alone() -> None:
    warm_now(object())
