"""The extractor's and the consolidator's prompts against the seed's examples (goldens), and their transcript."""

from __future__ import annotations

from memory_helpers import data_file, seed_api_style, seed_vim

from catcode.conversation.messages import Message, Role, TextBlock, ToolResultBlock, ToolUseBlock
from catcode.conversation.transcript import render_transcript
from catcode.memory.pipeline.prompts import (
    CONSOLIDATOR_INSTRUCTIONS,
    EXTRACTOR_INSTRUCTIONS,
    build_consolidate_prompt,
    build_extract_prompt,
)
from catcode.memory.store.models import CandidateMemory, MemorySummary
from catcode.session.compaction import SUMMARY_MARKER


def seed_conversation() -> list[Message]:
    return [
        Message.user("继续昨天的重构，把 UserService 也改成 Kotlin 风格"),
        Message(
            role=Role.ASSISTANT,
            content=[
                TextBlock(text="好的，让我先看一下..."),
                ToolUseBlock(id="t1", name="read_file", input={"path": "UserService.kt"}),
            ],
        ),
        Message(role=Role.USER, content=[ToolResultBlock(tool_use_id="t1", content="(文件内容预览...)")]),
    ]


def test_extract_prompt_matches_the_seed_example() -> None:
    known = [MemorySummary(name="project-api-style", description="项目 API 风格遵循 Kotlin 官方惯例")]
    assert build_extract_prompt(seed_conversation(), known) == data_file("extract_prompt.txt").removesuffix("\n")


def test_consolidate_prompt_matches_the_seed_example() -> None:
    api = seed_api_style()
    candidate = CandidateMemory(type=api.type, name=api.name, description=api.description, content=api.content)
    prompt = build_consolidate_prompt([candidate], [seed_vim()])
    assert prompt == data_file("consolidate_prompt.txt").removesuffix("\n")


def test_instructions_are_the_seed_text_plus_the_secrets_line() -> None:
    golden = data_file("extract_prompt.txt")
    assert golden.startswith(EXTRACTOR_INSTRUCTIONS + "\n\n## Already Known\n")
    assert EXTRACTOR_INSTRUCTIONS.endswith(
        'respond with {"candidates": []}\nNever save secrets (API keys, tokens, passwords, private keys) or '
        "anything derivable from the code itself."
    )
    assert data_file("consolidate_prompt.txt").startswith(CONSOLIDATOR_INSTRUCTIONS + "\n\n## Existing Memories\n")


def test_empty_sections_say_none() -> None:
    prompt = build_extract_prompt([Message.user("hi")], [])
    assert prompt.endswith("## Already Known\n(none)\n\n## Conversation\nUSER: hi")
    assert "## Existing Memories\n(none)\n\n## Candidates" in build_consolidate_prompt([], [])


def test_summaries_tool_calls_and_results() -> None:
    messages = [
        Message.user(f"{SUMMARY_MARKER}\nwe chose Kotlin"),
        Message(
            role=Role.ASSISTANT,
            content=[
                ToolUseBlock(id="a", name="read_file", input={}),
                ToolUseBlock(id="b", name="bash", input={}),
            ],
        ),
        Message(
            role=Role.USER,
            content=[
                ToolResultBlock(tool_use_id="a", content="line1\nline2"),
                ToolResultBlock(tool_use_id="b", content="y" * 500, is_error=True),
            ],
        ),
    ]
    text = render_transcript(messages)
    lines = text.split("\n")
    assert lines[:4] == [
        "USER: [Conversation Summary]",
        "we chose Kotlin",
        "ASSISTANT:",
        "  [Tool Calls: read_file, bash]",
    ]
    assert lines[4].startswith("  [Tool Results: line1 line2 | yyyy") and lines[4].endswith("…]")
    assert len(lines[4]) < 300


def test_multi_line_candidate_content_is_indented() -> None:
    candidate = CandidateMemory(type="feedback", name="n", description="d", content="a\n\nb")
    assert build_consolidate_prompt([candidate], []).endswith("## Candidates\n1. [feedback] n: d\n   a\n\n   b")


def test_very_long_message_is_capped() -> None:
    text = render_transcript([Message.user("z" * 20_000)])
    assert len(text) < 9_000 and text.endswith("more characters]")
