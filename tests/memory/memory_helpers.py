"""Helpers of the memory pipeline tests (imported by conftest.py and the test modules)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from catcode.memory.store.models import MemoryEntry, MemoryType

SEED_DAY = date(2026, 8, 6)
DATA = Path(__file__).parent.parent / "data" / "memory"


class RecordingVersioning:
    """Stands in for GitStore: records each commit."""

    def __init__(self, fail: bool = False) -> None:
        self.commits: list[tuple[str, list[Path]]] = []
        self.fail = fail

    def commit(self, message: str, paths: list[Path]) -> str | None:
        self.commits.append((message, list(paths)))
        if self.fail:
            raise RuntimeError("git exploded")
        return f"c{len(self.commits)}"

    @property
    def messages(self) -> list[str]:
        return [message for message, _ in self.commits]


class Clock:
    """An injectable ``today``."""

    def __init__(self, day: date = SEED_DAY) -> None:
        self.day = day

    def __call__(self) -> date:
        return self.day


def seed_vim() -> MemoryEntry:
    return MemoryEntry(
        name="user-prefers-vim",
        description="用户偏好 vim 编辑器",
        type=MemoryType.USER,
        content="用户偏好 vim 作为编辑器，配置在 ~/.vimrc。",
        created_at=SEED_DAY,
        updated_at=SEED_DAY,
    )


def seed_api_style() -> MemoryEntry:
    return MemoryEntry(
        name="project-api-style",
        description="项目 API 风格遵循 Kotlin 官方惯例",
        type=MemoryType.PROJECT,
        content="API 调用、命名、注释都遵循 Kotlin 官方风格指南",
        created_at=SEED_DAY,
        updated_at=SEED_DAY,
    )


def data_file(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def capture_in_process(runtime: Any, recall: Any = None) -> Any:
    """Run the exit's hand-off at once in this process: what ``catcode memory upkeep --capture`` does after the exit
    (``upkeep.capture_and_report``, with ``recall`` the session summary too), instead of starting that process."""
    from catcode.memory.upkeep import capture_and_report

    def launch(*, capture: str | None = None, minimum: int | None = None) -> bool:
        if capture is not None:
            capture_and_report(runtime, recall, capture, minimum)
        return True

    runtime.launch = launch
    return runtime


def exit_and_next_start(runtime: Any, end: Any = None) -> list[str]:
    """What the person is shown: the exit's lines (``end(say)``, default the memory exit step), then the lines the
    capture left for the next start."""
    from catcode.memory.exit_capture import capture_at_exit
    from catcode.memory.upkeep import take_reports

    said: list[str] = []
    (end or (lambda say: capture_at_exit(runtime, say)))(said.append)
    return said + [line for report in take_reports(runtime.paths) for line in report]
