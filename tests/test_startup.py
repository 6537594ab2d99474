"""The collector pause around start-up imports (``catcode.cli.gc_pause``)."""

from __future__ import annotations

import gc

from catcode.cli.gc_pause import pause_gc, resume_gc, warm_now


class Provider:
    def __init__(self) -> None:
        self.warmed_with_gc: bool | None = None

    def warm_up(self) -> None:
        self.warmed_with_gc = gc.isenabled()


def test_pause_then_resume_freezes_and_reenables() -> None:
    assert gc.isenabled()
    try:
        pause_gc()
        assert not gc.isenabled()
        provider = Provider()
        warm_now(provider)
        assert provider.warmed_with_gc is False  # the SDK import ran with the collector paused
        assert gc.isenabled() and gc.get_freeze_count() > 0
        resume_gc()  # a second resume changes nothing
        assert gc.isenabled()
    finally:
        gc.unfreeze()
        gc.enable()


def test_resume_without_pause_leaves_a_disabled_collector_alone() -> None:
    gc.disable()
    try:
        resume_gc()
        assert not gc.isenabled()  # only undoes its own pause
    finally:
        gc.enable()
