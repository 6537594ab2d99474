"""Memory names: the kebab-case rule, its reasons, and the safe repair of near misses."""

from __future__ import annotations

import pytest

from catcode.errors import InvalidMemoryName
from catcode.memory.store.names import slugify, validate_name


@pytest.mark.parametrize("name", ["user-prefers-vim", "a", "x1", "2fa-setup", "a-b-c-d", "a" * 64])
def test_valid_names_are_returned_unchanged(name: str) -> None:
    assert validate_name(name) == name


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("", "must not be blank"),
        ("   ", "must not be blank"),
        ("a/b", "path separators"),
        ("a\\b", "path separators"),
        ("..", "traverse"),
        ("../etc", "path separators"),
        ("a..b", "traverse"),
        ("MEMORY", "reserved"),
        ("memory", "reserved"),
        ("Memory", "reserved"),
        ("a" * 65, "at most 64"),
        ("User-Prefers", "kebab-case"),
        ("user_prefers", "kebab-case"),
        ("user--prefers", "kebab-case"),
        ("-lead", "kebab-case"),
        ("trail-", "kebab-case"),
        ("has space", "kebab-case"),
        ("用户偏好", "kebab-case"),
        ("name.md", "kebab-case"),
    ],
)
def test_invalid_names_say_why(name: str, reason: str) -> None:
    with pytest.raises(InvalidMemoryName, match=reason) as info:
        validate_name(name)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("User_Prefers Vim", "user-prefers-vim"),
        ("  project API style!  ", "project-api-style"),
        ("Kotlin 官方惯例 style", "kotlin-style"),
        ("a--b", "a-b"),
        ("x" * 80, "x" * 64),
    ],
)
def test_slugify_repairs_near_misses(text: str, slug: str) -> None:
    assert slugify(text) == slug


@pytest.mark.parametrize("text", ["../etc/passwd", "a/b", "a\\b", "..", "用户偏好", "", "---", "MEMORY"])
def test_slugify_never_repairs_paths_or_nothing(text: str) -> None:
    assert slugify(text) is None
