"""The work journal: daily files, and compiling completed days into weeks and weeks into the long-term summary —
once each, resumable after a crash at any step, bounded per start."""

from __future__ import annotations

import os
import re
import time
from datetime import date, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catcode.errors import ProviderError
from catcode.memory.recall import journal as journal_module
from catcode.memory.recall.compile import JournalCompiler
from catcode.memory.recall.journal import DailyEntry, Journal, clean_summary, week_id
from catcode.memory.versioning.git_store import GitStore
from catcode.providers.scripted import RecordedRequest, ScriptedProvider, text_response

START = date(2026, 11, 2)  # a Monday: ISO week 2026-W45
TODAY = date(2026, 11, 23)  # Monday of 2026-W48: the three weeks before it are complete


class Day:
    """A settable clock."""

    def __init__(self, day: date) -> None:
        self.day = day

    def __call__(self) -> date:
        return self.day


class Commits:
    """Records commits like ``GitStore.commit``; can be told to fail."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.paths: list[list[Path]] = []
        self.fail = False

    def __call__(self, message: str, paths: list[Path]) -> str:
        if self.fail:
            raise RuntimeError("git exploded")
        self.messages.append(message)
        self.paths.append(list(paths))
        return "c"


def answer(request: RecordedRequest):
    """A compile reply naming the inputs it was given, so tests can see what went where."""
    prompt = request.messages[0].text
    week = re.search(r"week\s+(\d{4}-W\d\d)", prompt)
    sessions = re.findall(r"^### \S+ \S+ session (\S+)", prompt, re.M)
    kind = "weekly" if "## New session summaries" in prompt else "longterm"
    return text_response(f"- {kind} {week[1] if week else '?'}: {' '.join(sessions) or 'merged'}")


def responder(n: int) -> ScriptedProvider:
    return ScriptedProvider(*[answer] * n)


def write_days(journal: Journal, first: date, days: int, per_day: int = 2) -> list[DailyEntry]:
    entries = []
    for offset in range(days):
        day = first + timedelta(days=offset)
        for n in range(per_day):
            entry = DailyEntry(day=day, time=f"1{n}:00", session=f"s{day:%m%d}{n}", text=f"- worked on {day} #{n}")
            journal.append(entry)
            entries.append(entry)
    return entries


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(tmp_path / "memory" / "projects" / "p" / "journal")


def compiler(journal: Journal, provider: ScriptedProvider, today: date = TODAY, commit=None) -> JournalCompiler:
    lock = journal.root.parent.parent.parent / ".write.lock"
    return JournalCompiler(journal, provider, today=Day(today), lock_path=lock, commit=commit)


def weekly_keys(journal: Journal) -> list[str]:
    return [key for week in journal.weeks() for key in journal.read_compiled(journal.weekly_path(week))[0]["entries"]]


# -- daily files ---------------------------------------------------------------------------------------------------


def test_daily_entries_are_appended_in_order_and_read_back_newest_first(journal: Journal) -> None:
    first = DailyEntry(day=START, time="09:15", session="aaa", text="- Renamed `UserService` to `Accounts`.")
    second = DailyEntry(day=START, time="17:40", session="bbb", text="- Open: migrate the 用户 table")
    later = DailyEntry(day=START + timedelta(days=1), time="08:00", session="ccc", text="- Fixed CI")
    for entry in (first, second, later):
        journal.append(entry)
    assert journal.daily_path(START).read_text() == (
        "# 2026-11-02\n\n## 09:15 session aaa\n\n- Renamed `UserService` to `Accounts`.\n\n"
        "## 17:40 session bbb\n\n- Open: migrate the 用户 table\n"
    )
    assert journal.entries(START) == [first, second]
    assert list(journal.recent_entries()) == [later, second, first]


def test_a_summary_cannot_forge_an_entry_heading() -> None:
    text = clean_summary("## Decisions\n## 10:00 session forged\n- kept\n#include <x.h>")
    assert text == "Decisions\n10:00 session forged\n- kept\n#include <x.h>"


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts=st.lists(st.text(max_size=200) | st.sampled_from(["## 10:00 session x\ny", "#\n##", "a\r\n# b"]),
                      min_size=1, max_size=3))  # fmt: skip
def test_any_summaries_read_back_as_written(journal: Journal, texts: list[str]) -> None:
    day = START + timedelta(days=len(journal.days()))  # a fresh day per example
    written = []
    for n, raw in enumerate(texts):
        text = clean_summary(raw)
        if text:
            journal.append(DailyEntry(day=day, time=f"0{n}:00", session=f"s{n}", text=text))
            written.append(text)
    assert [e.text for e in journal.entries(day)] == written


def age(journal: Journal, seconds: float) -> None:
    """Date the journal folders back, as if written ``seconds`` ago (no sleeping)."""
    stamp = time.time() - seconds
    for folder in (journal.root, journal.daily_dir, journal.weekly_dir):
        if folder.exists():
            os.utime(folder, (stamp, stamp))


def test_fingerprint_changes_on_every_write_and_delete_and_is_stable_otherwise(journal: Journal) -> None:
    journal.append(DailyEntry(day=START, time="10:00", session="a", text="x"))
    assert journal.fingerprint() != journal.fingerprint()  # just written: a change in the same tick could hide
    age(journal, 30)
    one = journal.fingerprint()
    assert journal.fingerprint() == one
    journal.append(DailyEntry(day=START, time="11:00", session="b", text="y"))
    age(journal, 20)
    two = journal.fingerprint()
    journal.daily_path(START).unlink()
    age(journal, 10)
    assert len({one, two, journal.fingerprint()}) == 3


# -- compiling ---------------------------------------------------------------------------------------------------


def test_three_weeks_compile_into_weekly_files_and_longterm_once_each(journal: Journal) -> None:
    entries = write_days(journal, START, 21)
    provider = responder(6)
    commits = Commits()
    assert compiler(journal, provider, commit=commits).run(max_steps=100) == 6
    provider.assert_complete()
    assert journal.weeks() == ["2026-W45", "2026-W46", "2026-W47"]
    assert sorted(weekly_keys(journal)) == sorted(e.key for e in entries)  # every session, exactly once
    weekly = journal.weekly_path("2026-W46").read_text()
    assert "# Week 2026-W46 (2026-11-09 to 2026-11-15)" in weekly and "- weekly 2026-W46: s11090 s11091" in weekly
    marker, body = journal.read_compiled(journal.longterm_path)
    assert sorted(marker["weeks"]) == ["2026-W45", "2026-W46", "2026-W47"]
    assert body == "- longterm 2026-W47: merged\n"
    assert journal.longterm_path.read_text().split("\n", 1)[1] == "# Long-term work summary\n\n" + body
    # Chronological: each week's weekly step precedes its long-term step; every call is a memory call at 0.3.
    kinds = [answer(r).text.split()[1:3] for r in provider.requests]
    assert kinds == [["weekly", "2026-W45:"], ["longterm", "2026-W45:"], ["weekly", "2026-W46:"],
                     ["longterm", "2026-W46:"], ["weekly", "2026-W47:"], ["longterm", "2026-W47:"]]  # fmt: skip
    assert {(r.options.purpose, r.options.temperature) for r in provider.requests} == {("memory", 0.3)}
    assert "The long-term summary already includes" not in provider.requests[3].messages[0].text
    assert "- longterm 2026-W45: merged" in provider.requests[3].messages[0].text  # merged into what exists
    assert commits.messages[:2] == [
        "journal-compile: 2026-W45 += 14 session summaries",
        "journal-compile: longterm += week 2026-W45",
    ]
    assert all(paths == [journal.root] for paths in commits.paths)
    # Idempotent: nothing left, no call made.
    assert compiler(journal, ScriptedProvider()).run(max_steps=100) == 0


def test_steps_per_start_are_bounded_and_the_backlog_is_worked_off_over_starts(journal: Journal) -> None:
    write_days(journal, START, 21, per_day=1)
    calls = []
    for _ in range(3):
        provider = responder(4)
        calls.append(compiler(journal, provider).run())  # default: 4 steps a start
    assert calls == [4, 2, 0]
    assert sorted(journal.read_compiled(journal.longterm_path)[0]["weeks"]) == ["2026-W45", "2026-W46", "2026-W47"]


def test_today_is_never_compiled_and_the_current_week_only_into_its_weekly_file(journal: Journal) -> None:
    monday, tuesday = TODAY, TODAY + timedelta(days=1)
    write_days(journal, monday, 2, per_day=1)  # Monday (complete on Tuesday) and Tuesday (today)
    provider = responder(1)
    assert compiler(journal, provider, today=tuesday).run() == 1
    assert weekly_keys(journal) == [f"{monday} 10:00 s{monday:%m%d}0"]
    assert not journal.longterm_path.exists()  # the week is not over
    # Next day: only Tuesday's entry is new; the prompt carries the week's summary so far to merge into.
    provider = responder(1)
    assert compiler(journal, provider, today=tuesday + timedelta(days=1)).run() == 1
    prompt = provider.requests[0].messages[0].text
    assert "- weekly 2026-W48: s11230" in prompt and "session s11240" in prompt and "session s11230" not in prompt
    assert len(weekly_keys(journal)) == 2


def test_a_late_entry_for_a_compiled_week_is_merged_and_the_longterm_revised(journal: Journal) -> None:
    write_days(journal, START, 7, per_day=1)
    assert compiler(journal, responder(2)).run() == 2
    journal.append(DailyEntry(day=START + timedelta(days=3), time="23:50", session="late", text="- late fix"))
    provider = responder(2)
    assert compiler(journal, provider).run() == 2
    weekly_prompt, longterm_prompt = (r.messages[0].text for r in provider.requests)
    assert "session late" in weekly_prompt and "session s11020" not in weekly_prompt
    assert "already includes an earlier version of this week" in longterm_prompt
    assert len(weekly_keys(journal)) == 8


@pytest.mark.parametrize("failing_step", [1, 2, 5])
def test_a_provider_failure_at_any_step_loses_nothing_and_duplicates_nothing(
    journal: Journal, failing_step: int
) -> None:
    entries = write_days(journal, START, 21)
    items: list = [answer] * 6
    items.insert(failing_step - 1, ProviderError("API overloaded (529)"))
    provider = ScriptedProvider(*items)
    with pytest.raises(ProviderError):
        compiler(journal, provider).run(max_steps=100)
    assert compiler(journal, provider).run(max_steps=100) == 6 - (failing_step - 1)  # a fresh start resumes
    provider.assert_complete()
    assert sorted(weekly_keys(journal)) == sorted(e.key for e in entries)
    weekly_prompts = [r.messages[0].text for r in provider.requests if "## New session summaries" in r.messages[0].text]
    sent = [s for p in weekly_prompts for s in re.findall(r"^### .* session (\S+)$", p, re.M)]
    assert len(sent) == len(entries) + (len(entries) // 3 if failing_step in (1, 5) else 0)  # a failed call is retried
    assert sorted(journal.read_compiled(journal.longterm_path)[0]["weeks"]) == ["2026-W45", "2026-W46", "2026-W47"]


def test_a_crash_while_writing_a_step_is_redone_once(journal: Journal, monkeypatch: pytest.MonkeyPatch) -> None:
    entries = write_days(journal, START, 14, per_day=1)
    real = journal_module.atomic_write_text
    writes = []

    def crash_on_third(path: Path, text: str, mode: int = 0o600) -> None:
        writes.append(path)
        if len(writes) == 3:
            raise OSError(28, "No space left on device")
        real(path, text, mode)

    monkeypatch.setattr(journal_module, "atomic_write_text", crash_on_third)
    provider = responder(5)
    with pytest.raises(OSError):
        compiler(journal, provider).run(max_steps=100)
    assert compiler(journal, provider).run(max_steps=100) == 2  # the failed step again, then the last one
    provider.assert_complete()
    assert sorted(weekly_keys(journal)) == sorted(e.key for e in entries)
    assert journal.read_compiled(journal.longterm_path)[1].count("- longterm 2026-W46") == 1


def test_a_failed_commit_keeps_the_step_and_the_next_commit_takes_the_file_along(journal: Journal) -> None:
    write_days(journal, START, 14, per_day=1)
    commits = Commits()
    commits.fail = True
    assert compiler(journal, responder(1), commit=commits).run(max_steps=1) == 1
    assert journal.weeks() == ["2026-W45"]
    commits.fail = False
    assert compiler(journal, responder(1), commit=commits).run(max_steps=1) == 1
    assert commits.paths == [[journal.root]]  # the whole folder: the uncommitted weekly file goes along


def test_a_step_raced_by_another_process_is_abandoned_without_overwriting(journal: Journal) -> None:
    write_days(journal, START, 7, per_day=1)
    path = journal.weekly_path("2026-W45")

    def meanwhile(request: RecordedRequest):
        journal.write_compiled(path, {"entries": ["other"]}, "Week", "- written by another process")
        return text_response("- mine")

    assert compiler(journal, ScriptedProvider(meanwhile)).run() == 0
    assert "- written by another process" in path.read_text()


def test_another_compiling_process_makes_a_start_skip(journal: Journal) -> None:
    from filelock import FileLock

    write_days(journal, START, 7, per_day=1)
    with FileLock(str(journal.root / ".compile.lock")):
        assert compiler(journal, ScriptedProvider()).run() == 0


def test_an_empty_reply_writes_nothing(journal: Journal) -> None:
    write_days(journal, START, 7, per_day=1)
    with pytest.raises(journal_module.CompileError):
        compiler(journal, ScriptedProvider(text_response("  \n"))).run()
    assert journal.weeks() == []


def test_compile_steps_are_git_commits(journal: Journal) -> None:
    git = GitStore(journal.root.parent.parent.parent)
    if not git.available:
        pytest.skip("git is not installed")
    write_days(journal, START, 7, per_day=1)
    assert compiler(journal, responder(2), commit=git.commit).run() == 2
    subjects = [change.subject for change in git.log(5)]
    assert subjects[:2] == [
        "journal-compile: longterm += week 2026-W45",
        "journal-compile: 2026-W45 += 7 session summaries",
    ]
    assert {f.path for f in git.log(5)[1].files} >= {"projects/p/journal/weekly/2026-W45.md"}


def test_week_ids_follow_iso_weeks_across_the_year_end() -> None:
    assert week_id(date(2026, 12, 31)) == "2026-W53" and week_id(date(2027, 1, 4)) == "2027-W01"
