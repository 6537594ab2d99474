"""``catcode memory upkeep [--capture SESSION] [--minimum N]``: the memory work nobody waits for, started by catcode
itself in a process of its own (``memory/upkeep.py``) — the capture and session summary after an exit, the upkeep
of a large store. Hidden from ``--help``: a person never needs to run it, though running it by hand is harmless.
It prints nothing; what it did is logged, and the lines of a capture are shown at the next start."""

from __future__ import annotations

import os

import typer


def upkeep(
    capture: str | None = typer.Option(None, "--capture", help="Capture what the session SESSION left, first."),
    minimum: int | None = typer.Option(None, "--minimum", help="Capture from this many messages."),
) -> None:
    """Look after memory in the background: capture what a session left (with --capture), read the memory files
    not read yet, record what was left uncommitted, bring the search index up to date."""
    from catcode.cli.launch import load
    from catcode.log import get_logger
    from catcode.memory.builder import build_memory_runtime, build_recall
    from catcode.memory.upkeep import run_upkeep

    log = get_logger(__name__)
    settings, paths = load()
    try:
        provider = None
        if capture is not None:
            from catcode.app.build import make_provider

            provider = make_provider(settings, dict(os.environ))
        runtime = build_memory_runtime(settings, paths, provider=provider)
        with build_recall(runtime) as recall:
            run_upkeep(runtime, recall, capture=capture, minimum=minimum)
        if capture is not None and settings.memory.sync == "auto":
            _sync_after_capture(runtime)
    except Exception:
        log.warning("memory_upkeep_failed", capture=capture, exc_info=True)
        raise typer.Exit(1) from None


def _sync_after_capture(runtime: object) -> None:
    """``memory.sync: auto``: the sync at exit carries what the capture saved, so it runs once the capture is done."""
    from catcode.memory.sync.auto import start_sync_process
    from catcode.memory.versioning.remote import GitRemote

    paths = runtime.paths  # type: ignore[attr-defined]
    if GitRemote(paths.memory_root).url() is not None:
        start_sync_process(paths.project_root)
