"""The doctor's check of a project's history.jsonl: lines that are not valid records (a hand edit such as
``{"seq":100,"type":"message","role":"user","content":"x"}``, or the fragment of a write cut short). Every reader
skips them (and logs them), so they never break capture; the doctor names them, and ``--fix`` moves them, under
the history lock, to ``history-rejected.jsonl`` next to it (kept, never read again)."""

from __future__ import annotations

import os
from pathlib import Path

from catcode.file_modes import PRIVATE_FILE
from catcode.fsutil import atomic_write_bytes, locked
from catcode.log import get_logger
from catcode.memory.pipeline.history_format import record_data, record_from, split_lines
from catcode.memory.store.doctor import Finding

log = get_logger(__name__)

KIND = "history"
REJECTED = "history-rejected.jsonl"
SHOWN = 3  # lines named in the finding; the rest are counted


class HistoryCheck:
    """``doctor`` check of one history.jsonl (``root``: the memory root, for the names it shows)."""

    def __init__(self, path: Path, lock_path: Path, root: Path) -> None:
        self.path, self.lock_path, self.root = path, lock_path, root

    def bad_lines(self, data: bytes | None = None) -> list[tuple[int, bytes, str]]:
        """``(line number, line, reason)`` of every complete line that is not a valid record."""
        if data is None:
            try:
                data = self.path.read_bytes()
            except FileNotFoundError:
                return []
        lines, _tail = split_lines(data)  # an unterminated tail may be a write in progress: never judged
        bad = []
        for number, raw in enumerate(lines, 1):
            fields = record_data(raw)
            if fields is None:
                bad.append((number, raw, "not a JSON record with a seq and a type (a write cut short?)"))
                continue
            record, reason = record_from(fields)
            if record is None:
                bad.append((number, raw, f"seq {fields['seq']}: {reason}"))
        return bad

    def findings(self) -> list[Finding]:
        """One finding naming the bad lines, or none."""
        bad = self.bad_lines()
        if not bad:
            return []
        named = "; ".join(f"line {number} ({reason})" for number, _, reason in bad[:SHOWN])
        more = f" and {len(bad) - SHOWN} more" if len(bad) > SHOWN else ""
        noun = "line is" if len(bad) == 1 else "lines are"
        problem = f"{len(bad)} {noun} not valid and skipped by every reader: {named}{more}"
        fix = f"--fix moves them to {REJECTED} next to it (kept, never read)"
        return [Finding(KIND, os.path.relpath(self.path, self.root), problem, fix, self.path, fixable=True)]

    def fix(self, finding: Finding) -> str | None:
        """Move the bad lines out of history.jsonl (one atomic rewrite under the history lock)."""
        if finding.kind != KIND or finding.path != self.path:
            return None
        with locked(self.lock_path):
            data = self.path.read_bytes()
            bad = self.bad_lines(data)
            if not bad:
                return None
            numbers = {number for number, _, _ in bad}
            lines, tail = split_lines(data)
            rejected = self.path.with_name(REJECTED)
            fd = os.open(rejected, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, PRIVATE_FILE)
            try:
                os.write(fd, b"".join(raw for _, raw, _ in bad))
                os.fsync(fd)
            finally:
                os.close(fd)
            kept = b"".join(raw for number, raw in enumerate(lines, 1) if number not in numbers) + tail
            atomic_write_bytes(self.path, kept)
        log.warning("history_bad_lines_moved", path=str(self.path), lines=len(bad), to=str(rejected))
        return f"moved {len(bad)} bad line(s) of {finding.subject} to {REJECTED}"
