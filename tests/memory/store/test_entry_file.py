"""The ``<name>.md`` format and the ``MEMORY.md`` index: seed goldens, round-trips of any text, errors."""

from __future__ import annotations

from datetime import date

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from memory_helpers import SEED_DAY, data_file, seed_api_style, seed_vim

from catcode.memory.store import entry_file
from catcode.memory.store.entry_file import EntryParseError, parse, render, render_index
from catcode.memory.store.models import MemoryEntry, MemoryType


def entry(description: str = "d", content: str = "c", **kw: object) -> MemoryEntry:
    values = {"name": "a-memory", "type": MemoryType.USER, "created_at": SEED_DAY, "updated_at": SEED_DAY}
    values.update(kw)
    return MemoryEntry(description=description, content=content, **values)  # type: ignore[arg-type]


def test_seed_file_golden() -> None:
    golden = data_file("user-prefers-vim.md")
    assert render(seed_vim()) == golden
    assert parse(golden.encode()) == seed_vim()


def test_seed_index_golden() -> None:
    assert render_index([seed_vim(), seed_api_style()]) == data_file("MEMORY.md")


def test_empty_index_is_title_and_blank_line() -> None:
    assert render_index([]) == "# Memory Index\n\n"


def test_index_keeps_each_memory_on_one_line() -> None:
    text = render_index([entry(description="line one\nline two")])
    assert text.splitlines()[2] == "- [a-memory](a-memory.md) — line one line two"


@given(description=st.text(), content=st.text())
def test_any_text_round_trips_and_yaml_agrees(description: str, content: str) -> None:
    original = entry(description, content)
    text = render(original)
    assert parse(text.encode("utf-8")) == original
    front = text.split("\n---\n", 1)[0].removeprefix("---\n")
    assert yaml.safe_load(front)["description"] == description  # any YAML reader sees the same


@pytest.mark.parametrize(
    "description",
    [
        "yes",
        "No",
        "null",
        "~",
        "true",
        "2026-08-06",
        "12",
        "1.5",
        "a: b",
        "x #y",
        "---",
        "- item",
        "[a]",
        "{a}",
        " leading",
        "trailing ",
        "'quoted'",
        '"dq"',
        "用户偏好 vim 编辑器",
        "🐱 emoji",
        "line\nbreak",
        "tab\there",
        "\u2028",
        "\x85",
        "\ufeff",
        "",
        "back\\slash",
        "&anchor",
        "*alias",
        "!tag",
        "%dir",
        "@at",
        "`tick`",
        "key:",
    ],
)
def test_tricky_descriptions_round_trip(description: str) -> None:
    assert parse(render(entry(description)).encode()) == entry(description)


@pytest.mark.parametrize("content", ["", "\n", "a\n\n", "---\nlooks like front matter\n---\n", "\r\n", "  indented"])
def test_content_round_trips_exactly(content: str) -> None:
    text = render(entry(content=content))
    assert text.endswith(content + "\n")  # normalisation: exactly one trailing newline added on write
    assert parse(text.encode()).content == content


def test_plain_scalars_when_safe_quoted_otherwise() -> None:
    text = render(entry(description="用户偏好 vim 编辑器"))
    assert "\ndescription: 用户偏好 vim 编辑器\n" in text
    assert '\ndescription: "yes"\n' in render(entry(description="yes"))
    assert '\ndescription: "a: b\\nc"\n' in render(entry(description="a: b\nc"))


def test_hand_edited_yaml_is_accepted() -> None:
    text = (
        "---\nname: 'a-memory'\ndescription: >-\n  folded\n  text\nmetadata:\n  type: User\n"
        "  createdAt: '2026-08-01'\n  updatedAt: 2026-08-02\n---\nbody\n"
    )
    parsed = parse(text.encode())
    assert (parsed.description, parsed.type, parsed.created_at, parsed.updated_at) == (
        "folded text",
        MemoryType.USER,
        date(2026, 8, 1),
        date(2026, 8, 2),
    )


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\xff\xfe not utf-8", "not UTF-8"),
        (b"no front matter\n", "does not start"),
        (b"---\nname: a\n", "no closing"),
        (b"---\n: : :\n  - [\n---\n", "broken front matter"),
        (b"---\n- a list\n---\n", "not a mapping"),
        (b"---\nname: a\ndescription: d\n---\n", "missing field: metadata"),
        (b"---\nname: a\nmetadata:\n  type: user\n---\n", "missing field: description"),
        (b"---\ndescription: d\nmetadata:\n  type: user\n---\n", "missing field: name"),
        (b"---\nname: a\ndescription: d\nmetadata:\n  createdAt: 2026-08-06\n---\n", "missing field: metadata.type"),
        (b"---\nname: a\ndescription: d\nmetadata:\n  type: boss\n---\n", "unknown type"),
        (b"---\nname: a\ndescription: d\nmetadata:\n  type: user\n---\n", "missing field: metadata.createdAt"),
        (b"---\nname: a\ndescription: [1]\nmetadata:\n  type: user\n---\n", "description is not text"),
        (
            b"---\nname: a\ndescription: d\nmetadata:\n  type: user\n  createdAt: soon\n  updatedAt: 2026-08-06\n---\n",
            "not a date",
        ),
    ],
)
def test_unreadable_files_raise_with_the_reason(data: bytes, reason: str) -> None:
    with pytest.raises(EntryParseError, match=reason) as info:
        parse(data)
    assert info.value.reason == str(info.value)


def test_lone_surrogates_are_made_writable() -> None:
    assert entry_file.clean_text("a\ud800b") == "a\ufffdb"
    assert entry_file.clean_text("ok") == "ok"
