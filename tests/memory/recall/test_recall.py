"""Recall at scale over a real store, git history and journal in tmp_path: search (CJK, identifiers, hostile
queries, ranking), the index kept in step with writes, deletes, other processes and git reverts, rebuilt after
facts.db is lost or corrupt; the session summary at exit; the recent-work block; /memory search and recent."""

from __future__ import annotations

import io
import json
import os
import re
import sqlite3
import threading
import time
from contextlib import closing
from datetime import date, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from catcode.commands.registry import Command, CommandContext, CommandRegistry
from catcode.conversation.messages import Message, ToolResultBlock, ToolUseBlock
from catcode.errors import ConfigError, ProviderError
from catcode.hooks.bus import CONTINUE, AppendMessages, HookContext, HookEvent
from catcode.memory.builder import build_memory_runtime, build_recall
from catcode.memory.commands import register_memory_commands
from catcode.memory.pipeline.history import HistoryLog
from catcode.memory.recall.journal import DailyEntry
from catcode.memory.recall.recall import Recall, today_from_env
from catcode.memory.recall.views import RecentWorkHook, memory_search_tool, search_text
from catcode.memory.runtime import MemoryRuntime
from catcode.memory.service import MemoryDoor
from catcode.memory.store.models import CandidateMemory, MemoryAction, MemoryEntry, MemoryOperation, MemoryType
from catcode.memory.words import recent_text
from catcode.providers.scripted import RecordedRequest, ScriptedProvider, text_response
from catcode.providers.tokens import estimate_tokens
from catcode.settings.config import Paths, Settings
from catcode.settings.memory import MemoryConfig
from catcode.tools.base import ToolContext, ToolRegistry

DAY = date(2026, 11, 30)
HIT_LINE = re.compile(r"^.+, (\d{4}-\d\d-\d\d|undated): .*$")


@pytest.fixture
def paths(tmp_path: Path) -> Paths:
    return Paths(tmp_path / "home", tmp_path / "proj", "proj-0123abcd", tmp_path / "memory", "tester")


def make_runtime(paths: Paths, provider: ScriptedProvider | None = None, **memory: object) -> MemoryRuntime:
    return build_memory_runtime(Settings(memory=MemoryConfig(**memory)), paths, provider=provider)


def make_recall(runtime: MemoryRuntime) -> Recall:
    recall = build_recall(runtime, today=lambda: DAY)
    recall.now = lambda: datetime(2026, 11, 30, 14, 5)
    return recall


@pytest.fixture
def runtime(paths: Paths) -> MemoryRuntime:
    return make_runtime(paths)


@pytest.fixture
def recall(runtime: MemoryRuntime) -> Recall:
    with make_recall(runtime) as recall:
        yield recall


def memory(name: str, content: str, description: str = "", kind: MemoryType = MemoryType.PROJECT) -> MemoryEntry:
    return MemoryEntry(name=name, description=description or content[:60], type=kind, content=content)


def add(entry: MemoryEntry) -> MemoryOperation:
    candidate = CandidateMemory(type=entry.type, name=entry.name, description=entry.description, content=entry.content)
    return MemoryOperation(action=MemoryAction.ADD, entry=candidate)


def sources(recall: Recall, query: str) -> list[str]:
    return [hit.source_id for hit in recall.search(query)]


def needs_git(runtime: MemoryRuntime) -> None:
    if not runtime.git.available:
        pytest.skip("git is not installed")


# -- search --------------------------------------------------------------------------------------------------------


def test_cjk_words_and_code_identifiers_are_found(runtime: MemoryRuntime, recall: Recall) -> None:
    runtime.store.update(
        memory("user-prefers-vim", "用户偏好 vim 作为编辑器，配置在 ~/.vimrc。", "用户偏好 vim 编辑器", MemoryType.USER)
    )
    runtime.store.update(memory("auth-layer", "The UserService class owns sessions; call get_token() first."))
    runtime.store.update(memory("path-rule", "Join paths with os.path.join, never string concatenation."))
    assert sources(recall, "偏好")[0] == "user-prefers-vim"
    assert sources(recall, "编辑器")[0] == "user-prefers-vim"
    assert sources(recall, "UserService")[0] == "auth-layer"
    assert sources(recall, "get_token")[0] == "auth-layer"
    assert sources(recall, "os.path.join")[0] == "path-rule"
    assert recall.search("偏好")[0].scope == "user"


def test_the_exact_fact_ranks_first_among_many_similar_ones(runtime: MemoryRuntime, recall: Recall) -> None:
    noise = [memory(f"note-{i:02d}", f"The database backup {i} runs nightly on the staging server.") for i in range(40)]
    runtime.store.apply([add(entry) for entry in noise], why="test")  # one batch, one commit
    runtime.store.update(memory("vault-rotation", "The staging database password rotates every 30 days through vault."))
    assert sources(recall, "staging database password rotates")[0] == "vault-rotation"
    assert sources(recall, "vault")[0] == "vault-rotation"
    assert len(recall.search("database", limit=5)) == 5


def test_search_text_lines_and_the_no_match_line(runtime: MemoryRuntime, recall: Recall) -> None:
    runtime.store.update(memory("user-prefers-vim", "The user edits with vim.", "editor choice", MemoryType.USER))
    today = date.today().isoformat()
    assert search_text(recall, "vim") == f"memory user-prefers-vim, {today}: The user edits with vim."
    assert search_text(recall, "emacs") == "No memories match emacs."
    assert search_text(recall, "  \x1b[31m  ") == "No memories match [31m."
    assert search_text(recall, "") == "No memories match (an empty query)."


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(max_size=300) | st.sampled_from(['"', "AND", "NEAR(vim, 2)", "c++", "*", "^x", "a:b", "x" * 9000]))
def test_any_query_through_the_tool_answers_hit_lines_or_no_match(runtime: MemoryRuntime, query: str) -> None:
    if runtime.store.get("seed") is None:
        runtime.store.update(memory("seed", "Vim AND emacs: c++ NEAR the 用户 table. * ^ \" ' ( )"))
    recall = make_recall(runtime)
    search = memory_search_tool(recall)
    result = ToolRegistry([search]).execute(search, search.parse({"query": query}), ToolContext(Path.cwd()))
    recall.close()
    assert not result.is_error, result.text
    assert result.text.startswith("No memories match ") or all(HIT_LINE.match(line) for line in result.text.split("\n"))


def test_the_tool_is_a_read_tool_keyed_on_the_query(recall: Recall) -> None:
    search = memory_search_tool(recall)
    assert (search.name, search.permission.value, search.key_arg) == ("memory_search", "read", "query")
    assert search.spec()["input_schema"]["required"] == ["query"]


# -- in step -------------------------------------------------------------------------------------------------------


def test_the_index_follows_writes_updates_deletes_and_a_git_revert(runtime: MemoryRuntime, recall: Recall) -> None:
    needs_git(runtime)
    store = runtime.store
    store.update(memory("deploy-target", "Deploys go to the amsterdam region."))
    assert sources(recall, "amsterdam") == ["deploy-target"]
    store.update(memory("deploy-target", "Deploys go to the frankfurt region."))
    assert sources(recall, "frankfurt") == ["deploy-target"] and sources(recall, "amsterdam") == []
    assert store.delete("deploy-target")
    assert sources(recall, "frankfurt") == []
    runtime.revert()  # undo the delete: git writes the file back
    assert sources(recall, "frankfurt") == ["deploy-target"]


def test_writes_of_another_process_are_seen(paths: Paths, recall: Recall) -> None:
    other = make_runtime(paths)
    other.store.update(memory("ci-cache", "CI caches the pnpm store between runs."))
    assert sources(recall, "pnpm") == ["ci-cache"]


def test_an_unchanged_fingerprint_skips_the_sync(runtime: MemoryRuntime, recall: Recall) -> None:
    runtime.store.update(memory("one", "first fact"))
    assert recall.sync() is not None
    assert recall.sync() is None
    recall.append_summary("- tuned the zorblax cache")
    assert recall.sync() is not None


def test_journal_files_and_the_compacted_history_are_searchable(paths: Paths, recall: Recall) -> None:
    recall.append_summary("- Refactored the tokenizer into lexer.py\n- Open: the zorblax flag")
    recall.journal.write_compiled(recall.journal.weekly_path("2026-W48"), {"entries": []}, "Week", "- quux landed")
    summary = "The team agreed to drop Python 3.10."
    head = {"seq": 40, "type": "compacted_summary", "ts": "2026-11-20T10:00:00.000Z", "covers": [1, 40],
            "count": 38, "until": "2026-11-19T18:00:00.000Z", "summary": summary}  # fmt: skip
    paths.history_file.write_text(json.dumps(head) + "\n", encoding="utf-8")
    assert search_text(recall, "zorblax") == "summary 2026-11-30: Open: the zorblax flag"
    assert search_text(recall, "quux") == "summary 2026-11-23: quux landed"
    assert search_text(recall, "python 3.10") == "summary 2026-11-19: The team agreed to drop Python 3.10."


def test_a_deleted_facts_db_is_rebuilt(runtime: MemoryRuntime, recall: Recall, paths: Paths) -> None:
    runtime.store.update(memory("ci-cache", "CI caches the pnpm store between runs."))
    assert sources(recall, "pnpm") == ["ci-cache"]
    for path in paths.facts_db.parent.glob("facts.db*"):
        path.unlink()
    assert sources(recall, "pnpm") == ["ci-cache"]
    assert paths.facts_db.exists()


def test_the_index_of_an_earlier_catcode_beside_the_memories_is_replaced_by_one_in_its_own_folder(
    runtime: MemoryRuntime, paths: Paths
) -> None:
    """facts.db's journal files come and go with each process: beside the memory files they changed the folder's
    mtime, so that every process listed a large folder again. It lives in a folder of its own now."""
    runtime.store.update(memory("ci-cache", "CI caches the pnpm store between runs."))
    earlier = paths.project_memory / "facts.db"
    for suffix in ("", "-wal", "-shm"):
        earlier.with_name(earlier.name + suffix).write_bytes(b"an earlier index")
    with make_recall(runtime) as recall:
        assert sources(recall, "pnpm") == ["ci-cache"]
        before = os.stat(paths.project_memory).st_mtime_ns
        recall.index.close()  # its journal files go: the memory folder is left as it was
        assert sources(recall, "pnpm") == ["ci-cache"]
        assert os.stat(paths.project_memory).st_mtime_ns == before
    assert paths.facts_db.parent == paths.project_memory / ".recall" and paths.facts_db.exists()
    assert not list(paths.project_memory.glob("facts.db*"))


def test_a_corrupt_facts_db_is_rebuilt_at_open(runtime: MemoryRuntime, paths: Paths) -> None:
    runtime.store.update(memory("ci-cache", "CI caches the pnpm store between runs."))
    with make_recall(runtime) as first:
        assert sources(first, "pnpm") == ["ci-cache"]
    paths.facts_db.write_bytes(b"\xde\xad" * 4096)
    for wal in paths.facts_db.parent.glob("facts.db-*"):
        wal.unlink()
    with make_recall(runtime) as recall:
        assert sources(recall, "pnpm") == ["ci-cache"]
    assert list(paths.facts_db.parent.glob("facts.db.corrupt-*"))  # kept aside for a post-mortem


def test_an_index_found_corrupt_by_a_search_is_refilled_at_once(runtime: MemoryRuntime, recall: Recall) -> None:
    runtime.store.update(memory("ci-cache", "CI caches the pnpm store between runs."))
    assert sources(recall, "pnpm") == ["ci-cache"]
    with closing(sqlite3.connect(recall.paths.facts_db)) as other:  # damage the FTS pages behind its back
        for table in ("facts_word_data", "facts_tri_data"):
            other.execute(f"UPDATE {table} SET block = X'0102030405060708' WHERE id > 1")
        other.commit()
    assert sources(recall, "pnpm") == ["ci-cache"]


# -- the session summary at exit ----------------------------------------------------------------------------------


def session(
    paths: Paths, provider: ScriptedProvider, user_turns: int, **memory: object
) -> tuple[MemoryRuntime, Recall]:
    runtime = make_runtime(paths, provider, **memory)
    other = HistoryLog(paths.history_file, session_id="someone-else", lock_path=paths.project_memory / ".history.lock")
    other.append(Message.user("a message of another session about quasar"))
    for n in range(user_turns):
        runtime.history.append(Message.user(f"please refactor module {n}"))
        runtime.history.append(Message.assistant(f"Refactored module {n}."))
    return runtime, make_recall(runtime)


def test_a_session_summary_is_appended_and_committed(paths: Paths) -> None:
    provider = ScriptedProvider(text_response("- Refactored modules 0 and 1\n- Open: module 2"))
    runtime, recall = session(paths, provider, 2)
    lines: list[str] = []
    recall.summarize_session_at_exit(lines.append)
    assert lines == ["Session summary saved to the journal — /memory recent shows it."]
    (request,) = provider.requests
    assert (request.options.purpose, request.options.temperature) == ("memory", 0.3)
    prompt = request.messages[0].text
    assert "USER: please refactor module 0" in prompt and "ASSISTANT: Refactored module 1." in prompt
    assert "quasar" not in prompt  # only this session's messages
    daily = paths.project_memory / "journal" / "daily" / "2026-11-30.md"
    assert daily.read_text() == (
        f"# 2026-11-30\n\n## 14:05 session {runtime.session_id}\n\n- Refactored modules 0 and 1\n- Open: module 2\n"
    )
    if runtime.git.available:
        assert runtime.git.log(1)[0].subject == "session-summary: 2026-11-30"
    recent = recent_text(MemoryDoor(runtime, recall).recent())
    assert recent.startswith(f"2026-11-30 14:05 · session {runtime.session_id}\n- Refactored")


def test_a_trivial_session_is_not_summarised(paths: Paths) -> None:
    provider = ScriptedProvider()
    runtime, recall = session(paths, provider, 1)
    runtime.history.append(Message(role="user", content=[ToolResultBlock(tool_use_id="t1", content="ok")]))
    lines: list[str] = []
    recall.summarize_session_at_exit(lines.append)
    assert lines == [] and provider.requests == []
    assert not (paths.project_memory / "journal").exists()


def test_a_session_in_which_nothing_happened_is_not_summarised(paths: Paths) -> None:
    provider = ScriptedProvider()
    runtime, recall = session(paths, provider, 3)
    reading = ToolUseBlock(id="t1", name="read_file", input={"path": "a.py"})
    runtime.history.append(Message(role="assistant", content=[reading]))
    lines: list[str] = []
    recall.summarize_session_at_exit(lines.append, saved=False)  # questions and answers, only reading tools
    assert lines == [] and provider.requests == []
    assert not (paths.project_memory / "journal").exists()
    runtime.history.append(Message(role="assistant", content=[reading.model_copy(update={"name": "write_file"})]))
    provider.queue(text_response("- Wrote a.py"))
    recall.summarize_session_at_exit(lines.append, saved=False)  # a tool that changes something: summarised
    assert len(provider.requests) == 1


def test_a_long_session_whose_start_was_compacted_is_summarised_with_its_summary(paths: Paths) -> None:
    provider = ScriptedProvider(text_response("- Finished the long refactor"))
    _, recall = session(paths, provider, 1)  # one message left after compaction, no session_start line
    head = {"seq": 1, "type": "compacted_summary", "covers": [1, 1], "count": 40, "summary": "Long refactor begun."}
    paths.history_file.write_text(json.dumps(head) + "\n" + paths.history_file.read_text(), encoding="utf-8")
    lines: list[str] = []
    recall.summarize_session_at_exit(lines.append)
    assert "EARLIER IN THE SESSION (summary): Long refactor begun.\nUSER: please refactor module 0" in (
        provider.requests[0].messages[0].text
    )
    assert [e.text for e in recall.journal.recent_entries()] == ["- Finished the long refactor"]


def test_a_provider_failure_is_one_line_and_writes_nothing(paths: Paths) -> None:
    _, recall = session(paths, ScriptedProvider(ProviderError("API overloaded (529) after 4 retries")), 3)
    lines: list[str] = []
    recall.summarize_session_at_exit(lines.append)
    assert lines == ["The session summary failed (API overloaded (529) after 4 retries) and was skipped."]
    assert list(recall.journal.recent_entries()) == []


def test_a_slow_summary_is_abandoned_at_the_exit_timeout(paths: Paths) -> None:
    release = threading.Event()

    def slow(request: RecordedRequest):
        release.wait(10)
        return text_response("- too late")

    _, recall = session(paths, ScriptedProvider(slow), 2, exit_timeout=0.05)
    lines: list[str] = []
    recall.summarize_session_at_exit(lines.append)
    assert lines == ["The session summary timed out after 0s and was skipped."]
    release.set()
    for worker in [t for t in threading.enumerate() if t.name == "session-summary"]:
        worker.join(5)
    assert list(recall.journal.recent_entries()) == []  # abandoned: nothing written after the timeout


def test_secrets_in_a_summary_are_redacted(recall: Recall) -> None:
    recall.append_summary("- Set the key sk-ant-api03-" + "Ab3" * 31 + " in CI")
    (entry,) = recall.journal.recent_entries()
    assert entry.text == "- Set the key [REDACTED:anthropic_key] in CI"


# -- the recent-work block -------------------------------------------------------------------------------------------


def append(recall: Recall, day: int, time: str, text: str) -> None:
    recall.journal.append(DailyEntry(day=date(2026, 11, day), time=time, session=f"s{day}{time[:2]}", text=text))


def request() -> HookContext:
    return HookContext(HookEvent.PRE_LLM_REQUEST)


def test_recent_work_is_the_latest_summaries_newest_first(recall: Recall) -> None:
    hook = RecentWorkHook(recall)
    assert hook(request()) is CONTINUE  # no journal yet
    append(recall, 28, "09:00", "- Set up CI")
    append(recall, 29, "10:30", "- Refactored the parser\n- Open: lexer tests")
    append(recall, 29, "16:00", "- Wrote lexer tests")
    result = hook(request())
    assert isinstance(result, AppendMessages)
    assert result.messages[0].role == "system"
    assert result.messages[0].text == (
        "## Recent work\n\nSummaries of the latest sessions in this project, newest first. Call memory_search to "
        "find older work.\n\n"
        "### 2026-11-29 16:00 · session s2916\n- Wrote lexer tests\n\n"
        "### 2026-11-29 10:30 · session s2910\n- Refactored the parser\n- Open: lexer tests\n\n"
        "### 2026-11-28 09:00 · session s2809\n- Set up CI"
    )


def test_recent_work_is_capped_byte_stable_and_cached(runtime: MemoryRuntime, recall: Recall) -> None:
    for day in range(1, 29):
        append(recall, day, "12:00", f"- Day {day}: " + "worked on the parser and its tests. " * 8)
    stamp = time.time() - 60  # written a minute ago (a folder changed within the same clock tick is never cached)
    for folder in (recall.journal.daily_dir, recall.journal.root):
        os.utime(folder, (stamp, stamp))
    hook = RecentWorkHook(recall)
    text = hook.text()
    assert text is not None and estimate_tokens(text) <= runtime.config.recent_tokens
    assert "### 2026-11-28" in text and "### 2026-11-01" not in text
    assert hook.text() is text  # served from the cache while the journal is unchanged
    assert RecentWorkHook(recall).text() == text  # and rebuilt byte for byte
    append(recall, 29, "08:00", "- new day")
    assert hook.text().split("\n\n")[2] == "### 2026-11-29 08:00 · session s2908\n- new day"


def test_recent_work_holds_the_weekly_and_long_term_summaries_too(recall: Recall) -> None:
    """Issue 14 #15: only the daily summaries were injected as "## Recent work"."""
    for day in range(20, 30):
        append(recall, day, "12:00", f"- Day {day}: " + "worked on the parser and its tests. " * 8)
    journal = recall.journal
    journal.write_compiled(journal.weekly_path("2026-W46"), {"entries": []}, "Week 2026-W46", "- Chose tree-sitter")
    journal.write_compiled(journal.weekly_path("2026-W47"), {"entries": []}, "Week 2026-W47", "- Wrote the lexer")
    journal.write_compiled(journal.longterm_path, {"weeks": {}}, "Long-term", "- A parser for the config language")
    text = RecentWorkHook(recall).text()
    assert text is not None and estimate_tokens(text) <= recall.config.recent_tokens
    assert "### 2026-11-29 12:00" in text  # the newest days first
    assert text.index("### Week 2026-W47 (weekly summary)\n- Wrote the lexer") < text.index("### Week 2026-W46")
    assert text.endswith("### Long-term summary\n- A parser for the config language")


def test_a_single_long_summary_is_cut_to_the_budget(paths: Paths) -> None:
    recall = make_recall(make_runtime(paths, recent_tokens=60))
    append(recall, 30, "12:00", "- " + "a very long line about the refactor " * 40)
    text = RecentWorkHook(recall).text()
    assert text is not None and text.endswith("…") and estimate_tokens(text) <= 60


def test_recent_work_can_be_turned_off(paths: Paths) -> None:
    for settings_off in ({"recent_enabled": False}, {"recent_tokens": 0}):
        recall = make_recall(make_runtime(paths, **settings_off))
        append(recall, 30, "12:00", "- something")
        assert RecentWorkHook(recall)(request()) is CONTINUE


# -- commands and the clock ------------------------------------------------------------------------------------------


def test_memory_search_and_recent_subcommands(runtime: MemoryRuntime, recall: Recall) -> None:
    registry = CommandRegistry()
    register_memory_commands(registry, MemoryDoor(runtime, recall))
    runtime.store.update(memory("user-prefers-vim", "The user edits with vim.", "prefers vim", MemoryType.USER))
    append(recall, 30, "12:00", "- Tuned the [bold]vim[/bold] plugin")
    out = io.StringIO()
    ctx = CommandContext(session=None, console=Console(file=out, width=200))

    def run(line: str) -> str:
        out.seek(0)
        out.truncate()
        registry.dispatch(line, ctx)
        return out.getvalue()

    found = run("/memory search vim")
    assert "memory user-prefers-vim" in found and "summary 2026-11-30: Tuned the [bold]vim[/bold]" in found
    assert run("/memory search nothing-like-it") == "No memories match nothing-like-it.\n"
    assert run("/memory search") == "Usage: /memory search <query>\n"
    assert run("/memory recent") == "2026-11-30 12:00 · session s3012\n- Tuned the [bold]vim[/bold] plugin\n"
    assert run("/memory recent x") == "Usage: /memory recent [N]\n"
    command = registry.resolve("memory")
    assert isinstance(command, Command) and {"search", "recent"} <= command.subcommands.keys()


def test_catcode_today_overrides_the_journal_clock() -> None:
    assert today_from_env({"CATCODE_TODAY": "2026-12-01"})() == date(2026, 12, 1)
    assert today_from_env({}) == date.today
    for bad in ("yesterday", "2026-13-01", "2026-1-1"):
        with pytest.raises(ConfigError, match="CATCODE_TODAY"):
            today_from_env({"CATCODE_TODAY": bad})
