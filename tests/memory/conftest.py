"""Fixtures of the memory pipeline tests: a store on a temp memory root with a fixed clock and a
versioning recorder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from memory_helpers import Clock, RecordingVersioning

from catcode.memory.store.store import MemoryStore


@pytest.fixture
def memory_root(tmp_path: Path) -> Path:
    return tmp_path / "memory"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def versioning() -> RecordingVersioning:
    return RecordingVersioning()


@pytest.fixture
def make_store(memory_root: Path, clock: Clock, versioning: RecordingVersioning) -> Callable[..., MemoryStore]:
    """``make_store(**overrides)``: a store on ``memory_root`` (a second call = another process's view)."""

    def make(**overrides: object) -> MemoryStore:
        options: dict[str, object] = {"lock_path": memory_root / ".lock", "versioning": versioning, "today": clock}
        options.update(overrides)
        return MemoryStore(memory_root / "users" / "u1", memory_root / "projects" / "p1", **options)  # type: ignore[arg-type]

    return make


@pytest.fixture
def store(make_store: Callable[..., MemoryStore]) -> MemoryStore:
    return make_store()
