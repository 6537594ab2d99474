"""Tolerant parsing: a corpus of replies shaped like real model output. Never an exception, valid items
kept, every drop logged with its reason."""

from __future__ import annotations

import json

import pytest
from structlog.testing import capture_logs

from catcode.memory.pipeline.parsing import PREVIEW_CHARS, parse_candidates, parse_operations
from catcode.memory.store.models import MemoryAction, MemoryType

VIM = {"type": "user", "name": "user-prefers-vim", "description": "用户偏好 vim 编辑器", "content": "vim, ~/.vimrc"}
API = {"type": "project", "name": "project-api-style", "description": "Kotlin style", "content": "官方惯例"}


def reply(*items: object) -> str:
    return json.dumps({"candidates": list(items)}, ensure_ascii=False)


BIG = "x" * 1_000_000
CANDIDATE_REPLIES = [
    # (id, reply, names kept, drops logged, reply unparseable)
    ("plain", reply(VIM, API), ["user-prefers-vim", "project-api-style"], 0, False),
    ("fenced", f"```json\n{reply(VIM)}\n```", ["user-prefers-vim"], 0, False),
    ("fenced-no-lang", f"```\n{reply(VIM)}\n```\n", ["user-prefers-vim"], 0, False),
    ("prose-around", f"Here is what I found:\n{reply(VIM)}\nHope that helps!", ["user-prefers-vim"], 0, False),
    (
        "prose-with-braces",
        f'Format is {{"candidates": ...}}? Sure: {reply(API)} done {{}}',
        ["project-api-style"],
        0,
        False,
    ),
    ("prose-with-quote", f'The "vim editor: {reply(VIM)}', ["user-prefers-vim"], 0, False),
    ("trailing-commas", reply(VIM)[:-2] + ",]," + "}", ["user-prefers-vim"], 0, False),
    (
        "raw-newline-in-string",
        '{"candidates": [{"type": "user", "name": "a-b", "description": "d", "content": "l1\nl2"}]}',
        ["a-b"],
        0,
        False,
    ),
    ("truncated", reply(VIM, API)[:-40], ["user-prefers-vim"], 0, False),
    ("truncated-in-first", reply(VIM)[:30], [], 0, False),
    ("empty-object", "{}", [], 0, True),
    ("empty-list", '{"candidates": []}', [], 0, False),
    ("empty-string", "", [], 0, True),
    ("whitespace", "  \n ", [], 0, True),
    ("no-json", "I could not find anything worth remembering.", [], 0, True),
    ("one-megabyte-prose", BIG, [], 0, True),
    ("one-megabyte-content", reply({**VIM, "content": BIG}), ["user-prefers-vim"], 0, False),
    (
        "uppercase-type",
        reply({**VIM, "type": "USER"}, {**API, "type": "Reference"}),
        ["user-prefers-vim", "project-api-style"],
        0,
        False,
    ),
    ("unknown-type", reply({**VIM, "type": "preference"}, API), ["project-api-style"], 1, False),
    ("type-not-text", reply({**VIM, "type": 3}, API), ["project-api-style"], 1, False),
    ("traversal-name", reply({**VIM, "name": "../../etc/passwd"}, API), ["project-api-style"], 1, False),
    ("separator-name", reply({**VIM, "name": "notes/vim"}), [], 1, False),
    ("near-miss-name", reply({**VIM, "name": "User_Prefers Vim"}), ["user-prefers-vim"], 0, False),
    ("cjk-name", reply({**VIM, "name": "用户偏好"}), [], 1, False),
    ("reserved-name", reply({**VIM, "name": "MEMORY"}), [], 1, False),
    ("missing-content", reply({k: v for k, v in VIM.items() if k != "content"}, API), ["project-api-style"], 1, False),
    ("empty-description", reply({**VIM, "description": "  "}), [], 1, False),
    ("content-not-text", reply({**VIM, "content": ["a", "b"]}), [], 1, False),
    ("item-not-object", reply("user-prefers-vim", VIM), ["user-prefers-vim"], 1, False),
    ("candidates-is-object", json.dumps({"candidates": VIM}), ["user-prefers-vim"], 0, False),
    ("candidates-is-string", json.dumps({"candidates": "none"}), [], 0, True),
    ("candidates-null", json.dumps({"candidates": None}), [], 0, False),
    ("bare-list", json.dumps([VIM]), ["user-prefers-vim"], 0, False),
    ("capitalised-key", json.dumps({"Candidates": [VIM]}), ["user-prefers-vim"], 0, False),
    ("two-objects", f'{{"note": "thinking"}} then {reply(API)}', ["project-api-style"], 0, False),
    # json-repair reads the broken item too (name: oops), so it is dropped with its reason instead of silently
    ("broken-later-item", reply(VIM)[:-2] + ', {"type": "user", "name": oops}]}', ["user-prefers-vim"], 1, False),
]


@pytest.mark.parametrize(
    ("case", "text", "names", "drops", "unparseable"), CANDIDATE_REPLIES, ids=[c[0] for c in CANDIDATE_REPLIES]
)
def test_candidate_replies(case: str, text: str, names: list[str], drops: int, unparseable: bool) -> None:
    with capture_logs() as logs:
        candidates = parse_candidates(text).items
    assert [c.name for c in candidates] == names
    dropped = [e for e in logs if e["event"] == "memory_item_dropped"]
    assert len(dropped) == drops
    assert all(e["reason"] for e in dropped)
    failures = [e for e in logs if e["event"] == "memory_reply_unparseable"]
    assert bool(failures) == unparseable
    assert all(len(e["preview"]) <= PREVIEW_CHARS for e in failures if "preview" in e)


def test_near_miss_name_repair_is_logged() -> None:
    with capture_logs() as logs:
        parse_candidates(reply({**VIM, "name": "User_Prefers Vim"}))
    assert [(e["original"], e["name"]) for e in logs if e["event"] == "memory_name_repaired"] == [
        ("User_Prefers Vim", "user-prefers-vim")
    ]


def test_types_are_normalised() -> None:
    assert [c.type for c in parse_candidates(reply({**VIM, "type": " Feedback "})).items] == [MemoryType.FEEDBACK]


def test_truncated_reply_is_logged_as_incomplete() -> None:
    with capture_logs() as logs:
        parse_candidates(reply(VIM, API)[:-40])
    assert [e["kept"] for e in logs if e["event"] == "memory_reply_incomplete"] == [1]


def ops(*items: object) -> str:
    return json.dumps({"operations": list(items)}, ensure_ascii=False)


OPERATION_REPLIES = [
    # (id, reply, (action, target, entry name) kept, drops logged)
    ("add", ops({"action": "add", "targetName": None, "entry": VIM}), [("add", None, "user-prefers-vim")], 0),
    (
        "update-camel",
        ops({"action": "update", "targetName": "old-one", "entry": API}),
        [("update", "old-one", "project-api-style")],
        0,
    ),
    (
        "update-snake",
        ops({"action": "UPDATE", "target_name": "old-one", "entry": API}),
        [("update", "old-one", "project-api-style")],
        0,
    ),
    ("skip-null-entry", ops({"action": "Skip", "targetName": None, "entry": None}), [("skip", None, None)], 0),
    (
        "target-null-string",
        ops({"action": "add", "targetName": "null", "entry": VIM}),
        [("add", None, "user-prefers-vim")],
        0,
    ),
    ("flat-entry", ops({"action": "add", **VIM}), [("add", None, "user-prefers-vim")], 0),
    (
        "unknown-action",
        ops({"action": "merge", "entry": VIM}, {"action": "add", "entry": API}),
        [("add", None, "project-api-style")],
        1,
    ),
    ("traversal-target", ops({"action": "update", "targetName": "../x", "entry": VIM}), [], 1),
    (
        "repairable-target",
        ops({"action": "update", "targetName": "Old One", "entry": VIM}),
        [("update", "old-one", "user-prefers-vim")],
        0,
    ),
    ("invalid-entry", ops({"action": "add", "entry": {**VIM, "type": "boss"}}), [], 2),
    ("skip-invalid-entry", ops({"action": "skip", "entry": {"name": "x"}}), [("skip", None, None)], 1),
    ("target-not-text", ops({"action": "update", "targetName": 7, "entry": VIM}), [], 1),
    ("operation-not-object", ops(["add"], {"action": "skip"}), [("skip", None, None)], 1),
    (
        "fenced-prose-trailing",
        f"Sure!\n```json\n{ops({'action': 'add', 'entry': VIM})[:-2]},],}}\n```",
        [("add", None, "user-prefers-vim")],
        0,
    ),
]


@pytest.mark.parametrize(("case", "text", "kept", "drops"), OPERATION_REPLIES, ids=[c[0] for c in OPERATION_REPLIES])
def test_operation_replies(case: str, text: str, kept: list[tuple[str, str | None, str | None]], drops: int) -> None:
    with capture_logs() as logs:
        operations = parse_operations(text).items
    assert [(o.action.value, o.target_name, o.entry.name if o.entry else None) for o in operations] == kept
    assert len([e for e in logs if e["event"] == "memory_item_dropped"]) == drops


@pytest.mark.parametrize("text", ["", "{}", "nothing", '{"operations": 5}', "[1, 2]", BIG])
def test_unusable_operation_replies_give_nothing(text: str) -> None:
    assert parse_operations(text).items == []


def test_non_text_reply_never_raises() -> None:
    assert parse_candidates(None).items == []  # type: ignore[arg-type]
    assert parse_operations(b"{}").items == []  # type: ignore[arg-type]


def test_actions_are_enum_members() -> None:
    assert parse_operations(ops({"action": "ADD", "entry": VIM})).items[0].action is MemoryAction.ADD


@pytest.mark.parametrize(
    ("text", "complete"),
    [
        (reply(), True),
        (reply(VIM), True),
        (f"Here is what I found:\n```json\n{reply(VIM)}\n```\nHope that helps!", True),
        (json.dumps([VIM]), True),
        (reply(VIM, API)[:-40], False),
        (reply(VIM).replace('"', "'"), False),
        ("I found nothing.", False),
        ("", False),
        ("{}", False),
    ],
)
def test_complete_tells_a_well_formed_reply_from_a_mended_or_unreadable_one(text: str, complete: bool) -> None:
    assert parse_candidates(text).complete is complete
