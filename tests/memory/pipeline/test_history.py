"""history.jsonl, .dream_cursor and history compaction."""

from __future__ import annotations

import json
import multiprocessing
import os
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from catcode.conversation.messages import Message, Role, TextBlock, ToolResultBlock, ToolUseBlock
from catcode.memory.pipeline.archive import ARCHIVE_NAME, archive_path, read_turns
from catcode.memory.pipeline.cursor import DreamCursor, unprocessed, unprocessed_count
from catcode.memory.pipeline.history import HistoryError, HistoryLog
from catcode.memory.pipeline.history_compaction import compact_history
from catcode.memory.pipeline.history_format import HistoryRecord, parse_line
from catcode.settings.memory import HistoryConfig
from tests.slowness import bound


def make_log(tmp: Path, session: str = "s1", **kw) -> HistoryLog:
    return HistoryLog(tmp / "history.jsonl", session_id=session, lock_path=tmp / ".lock", **kw)


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def tool_turn() -> list[Message]:
    return [
        Message.user("把 README 翻译成中文 🐱"),
        Message(
            role=Role.ASSISTANT,
            content=[
                TextBlock(text="好的，先读文件。"),
                ToolUseBlock(id="tu_1", name="read_file", input={"path": "README.md", "opts": {"lines": [1, 2]}}),
            ],
        ),
        Message(role=Role.USER, content=[ToolResultBlock(tool_use_id="tu_1", content="# 标题\nbody", is_error=False)]),
    ]


def test_append_read_round_trip_keeps_cjk_and_tool_blocks(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    seqs = [log.append(m) for m in tool_turn()]
    records = log.read()
    assert seqs == [1, 2, 3]
    assert [r.message() for r in records] == tool_turn()
    assert [(r.seq, r.session, r.type, r.role) for r in records] == [
        (1, "s1", "message", "user"),
        (2, "s1", "message", "assistant"),
        (3, "s1", "message", "user"),
    ]
    assert datetime.fromisoformat(records[0].ts).tzinfo is not None
    assert "把 README" in (tmp_path / "history.jsonl").read_text(encoding="utf-8")  # readable, not \\u-escaped


def test_one_line_per_append_and_mode_0600(tmp_path: Path) -> None:
    log = make_log(tmp_path / "deep" / "dir")
    for m in tool_turn():
        log.append(m)
    path = log.path
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    raw = lines_of(path)
    assert len(raw) == 3 and all(line.endswith(b"\n") and json.loads(line) for line in raw)


def test_two_sessions_alternating_get_monotonic_unique_seqs(tmp_path: Path) -> None:
    a, b = make_log(tmp_path, "a"), make_log(tmp_path, "b")
    got = [(a if i % 2 else b).append(Message.user(f"m{i}")) for i in range(10)]
    got.append(a.append(Message.user("a again")))
    assert got == list(range(1, 12))
    assert [r.session for r in a.read()] == ["b", "a"] * 5 + ["a"]


def _append_many(tmp: str, session: str, n: int) -> None:
    log = make_log(Path(tmp), session)
    for i in range(n):
        log.append(Message.user(f"{session}-{i}"))


def test_concurrent_processes_never_interleave_or_reuse_seqs(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_append_many, args=(str(tmp_path), s, 100)) for s in ("p", "q")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=bound(60))
        assert p.exitcode == 0
    records = make_log(tmp_path).read()
    assert [r.seq for r in records] == list(range(1, 201))
    assert len(lines_of(tmp_path / "history.jsonl")) == 200


def test_redact_applies_to_every_string(tmp_path: Path) -> None:
    seen: list[str] = []

    def redact(text: str) -> tuple[str, list[str]]:
        seen.append(text)
        return text.replace("sk-SECRET", "[REDACTED]"), ["api_key"] if "sk-SECRET" in text else []

    log = make_log(tmp_path, redact=redact)
    log.append(
        Message(
            role=Role.ASSISTANT,
            content=[
                TextBlock(text="key sk-SECRET"),
                ToolUseBlock(id="t", name="shell", input={"cmd": "export K=sk-SECRET", "env": ["sk-SECRET"]}),
            ],
        )
    )
    log.append(Message(role=Role.USER, content=[ToolResultBlock(tool_use_id="t", content="sk-SECRET" * 3)]))
    log.append_event("session_end", captured=False, note="sk-SECRET")
    text = log.path.read_text()
    assert "sk-SECRET" not in text and text.count("[REDACTED]") == 7
    assert "shell" in seen and "t" in seen  # every string went through redact, not just text blocks


def test_long_tool_result_is_truncated_with_marker(tmp_path: Path) -> None:
    log = make_log(tmp_path, tool_result_cap=100)
    log.append(Message(role=Role.USER, content=[ToolResultBlock(tool_use_id="t", content="x" * 500)]))
    log.append(Message(role=Role.USER, content=[ToolResultBlock(tool_use_id="u", content="y" * 100)]))
    long, short = (r.message().tool_results[0].content for r in log.read())
    assert long.startswith("x" * 100) and "400 more characters truncated" in long and len(long) < 150
    assert short == "y" * 100
    assert HistoryConfig().tool_result_cap == 8_000


def test_session_markers_round_trip_and_reserved_types_refused(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    log.append_event("session_start")
    log.append(Message.user("hi"))
    log.append_event("session_end", captured=True)
    start, _, end = log.read()
    assert (start.type, start.session, end.type, end.captured) == ("session_start", "s1", "session_end", True)
    with pytest.raises(ValueError):
        start.message()
    with pytest.raises(ValueError):
        log.append_event("compacted_summary")
    with pytest.raises(ValueError):
        log.append_event("session_end", seq=3)


def test_torn_last_line_is_skipped(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    log.append(Message.user("one"))
    log.append(Message.user("two"))
    with open(log.path, "ab") as fh:
        fh.write(b'{"seq":3,"session":"s1","ts":"2026-01-01T00:00:00Z","type":"mess')
    assert [r.message().text for r in log.read()] == ["one", "two"]
    assert unprocessed_count(log, DreamCursor(tmp_path / ".dream_cursor")) == 2


def test_torn_line_followed_by_appends_stays_isolated(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    log.append(Message.user("one"))
    with open(log.path, "ab") as fh:
        fh.write(b'{"seq":2,"session":"crashed","ty')
    other = make_log(tmp_path, "s2")  # a fresh session after the crash, no cached state
    assert other.append(Message.user("after crash")) == 2
    assert log.append(Message.user("and more")) == 3
    assert [(r.seq, r.message().text) for r in log.read()] == [(1, "one"), (2, "after crash"), (3, "and more")]
    assert len(lines_of(log.path)) == 4  # the fragment is a line of its own


def test_complete_record_missing_its_newline_is_not_reused(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    log.append(Message.user("one"))
    line = lines_of(log.path)[0].replace(b'"seq":1', b'"seq":2').rstrip(b"\n")
    with open(log.path, "ab") as fh:
        fh.write(line)
    assert [r.seq for r in log.read()] == [1]  # unterminated: maybe still being written
    assert make_log(tmp_path, "s2").append(Message.user("next")) == 3
    assert [r.seq for r in log.read()] == [1, 2, 3]


def test_seq_floor_keeps_seqs_above_cursor_after_history_is_deleted(tmp_path: Path) -> None:
    cursor = DreamCursor(tmp_path / ".dream_cursor")
    log = make_log(tmp_path, seq_floor=cursor.get)
    for i in range(5):
        log.append(Message.user(str(i)))
    cursor.advance(5)
    log.path.unlink()
    assert log.append(Message.user("fresh")) == 6
    assert [r.message().text for r in unprocessed(log, cursor)] == ["fresh"]


def test_cursor_missing_corrupt_never_backwards_and_atomic(tmp_path: Path) -> None:
    cursor = DreamCursor(tmp_path / ".dream_cursor", lock_path=tmp_path / ".lock")
    assert cursor.get() == 0
    cursor.advance(7)
    cursor.advance(3)
    assert cursor.get() == 7
    data = json.loads(cursor.path.read_text())
    assert data["seq"] == 7 and datetime.fromisoformat(data["updated"]).tzinfo is not None
    assert stat.S_IMODE(cursor.path.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == [".dream_cursor", ".lock"]  # no temp files left
    for junk in ("{not json", '{"seq": "7"}', '{"seq": -1}', "[]", ""):
        cursor.path.write_text(junk)
        assert cursor.get() == 0
    cursor.advance(2)
    assert cursor.get() == 2


def test_unprocessed_are_exactly_the_lines_after_the_cursor(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    cursor = DreamCursor(tmp_path / ".dream_cursor")
    log.append_event("session_start")
    for i in range(6):
        log.append(Message.user(f"m{i}"))
    assert unprocessed_count(log, cursor) == 7
    cursor.advance(4)
    assert [r.seq for r in unprocessed(log, cursor)] == [5, 6, 7]
    assert unprocessed_count(log, cursor, kinds={"message"}) == 3
    assert unprocessed(log, cursor) == log.read(after_seq=4)
    cursor.advance(7)
    assert unprocessed(log, cursor) == [] and unprocessed_count(log, cursor) == 0


# --- history compaction -------------------------------------------------------------------------


def summary_of(records: list[HistoryRecord]) -> str:
    return f"summary of {len(records)}"


def fill(log: HistoryLog, n: int, size: int = 100) -> None:
    for i in range(n):
        log.append(Message.user(f"{i}:" + "z" * size))


def test_compaction_replaces_processed_lines_and_seq_survives(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    cursor = DreamCursor(tmp_path / ".dream_cursor")
    fill(log, 20)
    cursor.advance(20)
    result = compact_history(log, cursor, char_budget=500, keep_recent=0, summarize=summary_of)
    assert result is not None and result.covers == (1, 20) and not result.stub
    [only] = log.read()
    assert (only.type, only.seq, only.summary, only.count) == ("compacted_summary", 20, "summary of 20", 20)
    assert log.append(Message.user("next")) == 21
    assert make_log(tmp_path, "s2").append(Message.user("other")) == 22


def test_compaction_under_budget_does_nothing(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    cursor = DreamCursor(tmp_path / ".dream_cursor")
    fill(log, 3)
    cursor.advance(3)
    before = log.path.read_bytes()
    assert compact_history(log, cursor, char_budget=10_000, keep_recent=0, summarize=summary_of) is None
    assert log.path.read_bytes() == before
    assert HistoryConfig().char_budget == 32_000 and HistoryConfig().keep_recent == 30
    with pytest.raises(ValidationError):
        HistoryConfig(char_budgett=1)


def test_append_during_summarize_is_kept(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    cursor = DreamCursor(tmp_path / ".dream_cursor")
    fill(log, 10)
    cursor.advance(8)
    other = make_log(tmp_path, "other")

    def summarize(records: list[HistoryRecord]) -> str:
        other.append(Message.user("written while summarising"))
        return "s"

    assert compact_history(log, cursor, char_budget=100, keep_recent=0, summarize=summarize) is not None
    assert [r.seq for r in log.read()] == [8, 9, 10, 11]
    assert log.read()[-1].message().text == "written while summarising"


def test_interrupted_summarize_propagates_and_leaves_file(tmp_path: Path) -> None:
    log = make_log(tmp_path)
    cursor = DreamCursor(tmp_path / ".dream_cursor")
    fill(log, 10)
    cursor.advance(10)
    before = log.path.read_bytes()

    def interrupted(records: list[HistoryRecord]) -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        compact_history(log, cursor, char_budget=100, keep_recent=0, summarize=interrupted)
    assert log.path.read_bytes() == before


def test_failed_rewrite_leaves_file_and_no_temp_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = make_log(tmp_path)
    cursor = DreamCursor(tmp_path / ".dream_cursor")
    fill(log, 10)
    cursor.advance(10)
    before = sorted(p.name for p in tmp_path.iterdir()), log.path.read_bytes()

    def no_space(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", no_space)
    with pytest.raises(HistoryError, match="left unchanged"):
        compact_history(log, cursor, char_budget=100, keep_recent=0, summarize=summary_of)
    assert (sorted(p.name for p in tmp_path.iterdir() if p.name != ARCHIVE_NAME), log.path.read_bytes()) == before
    monkeypatch.undo()  # the disk has room again: the retry archives the same turns a second time
    assert compact_history(log, cursor, char_budget=100, keep_recent=0, summarize=summary_of) is not None
    assert [t.seq for t in read_turns(archive_path(log.path))] == list(range(1, 11))  # each turn read once


@st.composite
def histories(draw: st.DrawFn) -> tuple[bytes, int]:
    """Random history bytes (messages, markers, old summaries, torn fragments, maybe a torn tail) and a cursor."""
    out, seq = [], 0
    for kind, session, text, gap in draw(
        st.lists(
            st.tuples(
                st.sampled_from(["message"] * 6 + ["session_start", "compacted_summary", "torn"]),
                st.sampled_from(["a", "b", "c"]),
                st.text(max_size=120),
                st.integers(0, 2),
            ),
            max_size=45,
        )
    ):
        if kind == "torn":
            out.append(b'{"seq":' + str(seq + 1).encode() + b',"ty\n')
            continue
        start, seq = seq + 1, seq + 1 + gap
        ts = f"2026-01-{1 + seq % 28:02d}T00:00:00Z"
        rec: dict[str, object] = {"seq": seq, "session": session, "ts": ts, "type": kind}
        if kind == "message":
            rec |= {"role": "user", "content": [{"type": "text", "text": text}]}
        elif kind == "compacted_summary":
            rec = {"seq": seq, "type": kind, "ts": ts, "covers": [start, seq], "count": gap + 1, "summary": text}
        out.append(json.dumps(rec, ensure_ascii=False).encode() + b"\n")
    if draw(st.booleans()):
        out.append(b'{"seq":99999,"torn')
    return b"".join(out), draw(st.integers(0, seq))


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    history=histories(),
    budget=st.integers(0, 1200),
    keep_recent=st.integers(0, 8),
    fail=st.booleans(),
)
def test_compaction_property(
    tmp_path_factory: pytest.TempPathFactory, history: tuple[bytes, int], budget: int, keep_recent: int, fail: bool
) -> None:
    data, cursor_seq = history
    tmp = tmp_path_factory.mktemp("h")
    log = make_log(tmp, clock=lambda: datetime(2026, 2, 1, tzinfo=UTC))
    log.path.write_bytes(data)
    cursor = DreamCursor(tmp / ".dream_cursor")
    cursor.advance(cursor_seq)
    seen: list[list[HistoryRecord]] = []

    def summarize(records: list[HistoryRecord]) -> str:
        seen.append(records)
        if fail:
            raise RuntimeError("model unavailable")
        return "SUMMARY"

    lines = data.splitlines(keepends=True)
    complete = [line for line in lines if line.endswith(b"\n")]
    parsed = [parse_line(line) for line in complete]
    valid = [i for i, rec in enumerate(parsed) if rec]
    first_unprocessed = next((i for i in valid if parsed[i].seq > cursor_seq), len(complete))

    result = compact_history(log, cursor, char_budget=budget, keep_recent=keep_recent, summarize=summarize)
    new = log.path.read_bytes()
    event("compacted" if result else "left alone")
    if result is None:
        assert new == data
        return
    assert len(data.decode(errors="replace")) > budget
    head, _, rest = new.partition(b"\n")
    summary = parse_line(head + b"\n")
    assert summary is not None and summary.type == "compacted_summary"
    # Everything after the summary is a verbatim suffix of the old file ...
    assert data.endswith(rest)
    boundary = len(complete) - len(rest.splitlines(keepends=True)) + (0 if data.endswith(b"\n") else 1)
    # ... that holds every line after the cursor and the newest keep_recent records, as many of those as are
    # processed fitting in half the budget (the rest are folded too, oldest first).
    assert boundary <= first_unprocessed
    keep_at = (valid[-keep_recent] if len(valid) >= keep_recent else 0) if keep_recent else len(complete)
    chars = lambda part: len(b"".join(part).decode(errors="replace"))  # noqa: E731
    if boundary > min(keep_at, first_unprocessed):
        assert chars(complete[boundary - 1 : first_unprocessed]) > budget // 2
    assert (
        boundary == first_unprocessed
        or chars(complete[boundary:first_unprocessed]) <= budget // 2
        or (boundary <= keep_at)
    )
    replaced = [rec for rec in parsed[:boundary] if rec]
    assert seen == [replaced]  # old summaries in the range were folded in
    assert all(rec.seq <= cursor_seq for rec in replaced)
    first = replaced[0].covers[0] if replaced[0].type == "compacted_summary" else replaced[0].seq
    assert summary.seq == replaced[-1].seq and summary.covers == (first, replaced[-1].seq)
    assert result.stub == fail and (summary.summary == "SUMMARY") != fail
    after = [parse_line(line) for line in new.splitlines(keepends=True)[1:] if line.endswith(b"\n")]
    seqs = [summary.seq] + [rec.seq for rec in after if rec]
    assert seqs == sorted(set(seqs))  # strictly increasing: the range is covered by exactly one summary
    if fail:
        assert summary.summary.split()[1:4] == ["earlier", "messages", "from"]
