"""Figures for history.jsonl: append cost, and the startup recovery check on a 10 MB history.

``bench_history()`` returns medians; the recovery check (``unprocessed_count`` with the cursor near the
end) is set next to the naive approach of parsing the whole file."""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from catcode.conversation.messages import Message, Role, ToolResultBlock, ToolUseBlock
from catcode.fsutil import locked
from catcode.memory.pipeline.cursor import DreamCursor, unprocessed_count
from catcode.memory.pipeline.history import HistoryLog

HISTORY_BYTES = 10 * 1024 * 1024
UNPROCESSED = 20


def _median_ns(fn: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        fn()
        samples.append(time.perf_counter_ns() - start)
    return statistics.median(samples)


def _hold(lock_path: Path) -> None:
    """Take and release the history lock: the part of an append that is fsutil/filelock, not history.py."""
    with locked(lock_path):
        pass


def _sample_messages() -> list[Message]:
    """A typical turn: a question, a tool call, its result, an answer."""
    return [
        Message.user("Why does the build fail on CI but not locally? 构建失败了"),
        Message(
            role=Role.ASSISTANT,
            content=[ToolUseBlock(id="tu_1", name="shell", input={"command": "pytest -x -q tests/"})],
        ),
        Message(role=Role.USER, content=[ToolResultBlock(tool_use_id="tu_1", content="E   AssertionError\n" * 60)]),
        Message.assistant("The CI image pins an older sqlite; the FTS5 tokenizer differs. " * 4),
    ]


def _write_big_history(path: Path, size: int) -> int:
    """Write realistic lines until ``size`` bytes; return the last seq."""
    bodies = [m.to_api() for m in _sample_messages()]
    chunks, total, seq = [], 0, 0
    while total < size:
        seq += 1
        body = bodies[seq % len(bodies)]
        record = {"seq": seq, "session": f"s{seq // 200}", "ts": "2026-08-06T10:00:00.000Z", "type": "message", **body}
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        chunks.append(line)
        total += len(line)
    path.write_bytes(b"".join(chunks))
    return seq


def bench_history() -> dict[str, float]:
    """Append cost (µs) and the 10 MB recovery check (ms) against a full parse, as medians."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        messages = _sample_messages()
        log = HistoryLog(root / "a" / "history.jsonl", session_id="bench", lock_path=root / "a" / ".lock")
        count = iter(range(10**9))
        append_ns = _median_ns(lambda: log.append(messages[next(count) % len(messages)]), 400)
        lock_ns = _median_ns(lambda: _hold(log.lock_path), 400)
        other = HistoryLog(log.path, session_id="other", lock_path=log.lock_path)
        # Two sessions alternating: every append finds the file changed and re-reads its tail.
        turns = iter(range(10**9))
        alternate_ns = _median_ns(lambda: (log if next(turns) % 2 else other).append(messages[0]), 400)

        big = HistoryLog(root / "b" / "history.jsonl", session_id="bench", lock_path=root / "b" / ".lock")
        big.path.parent.mkdir()
        last = _write_big_history(big.path, HISTORY_BYTES)
        cursor = DreamCursor(root / "b" / ".dream_cursor")
        cursor.advance(last - UNPROCESSED)
        assert unprocessed_count(big, cursor) == UNPROCESSED == len(big.read(cursor.get()))
        check_ns = _median_ns(lambda: unprocessed_count(big, cursor), 50)
        naive_ns = _median_ns(lambda: len(big.read(cursor.get())), 5)
    return {
        "append_median_us": append_ns / 1e3,
        "append_lock_share_median_us": lock_ns / 1e3,
        "append_alternating_sessions_median_us": alternate_ns / 1e3,
        "history_mb": HISTORY_BYTES / 2**20,
        "recovery_check_median_ms": check_ns / 1e6,
        "naive_full_parse_median_ms": naive_ns / 1e6,
        "recovery_check_speedup_ratio": naive_ns / check_ns,
    }
