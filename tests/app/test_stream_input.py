"""Issue 33 §4: ``--input-format stream-json`` lines are held to the cap piped text has, without reading a long
line whole: the shortened line is still the JSON it was (every string kept to its bound, the line closed where it
was stopped), whatever the text and however the line arrives in pieces."""

from __future__ import annotations

import io
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from catcode.app.stdin_input import MAX_CHARS
from catcode.app.stream_input import _pieces, _Shortener, read_lines, user_text

texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=120) | st.sampled_from(['"\\\\"', "\\u00e9", "😀\n\t"])


def message(content: Any) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": content}}


contents = texts | st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": texts}), max_size=5)


def shortened(line: bytes, pieces: list[int], string_bytes: int, line_bytes: int) -> tuple[Any, bool]:
    shortener, at = _Shortener(string_bytes, line_bytes), 0
    for size in pieces:
        shortener.feed(line[at : at + size])
        at += size
    shortener.feed(line[at:])
    return json.loads(shortener.close().decode("utf-8", "replace")), shortener.cut


@settings(max_examples=300, deadline=None)
@given(content=contents, ascii_only=st.booleans(), pieces=st.lists(st.integers(1, 9), max_size=30))
def test_a_line_within_the_bounds_is_kept_as_it_was(content: Any, ascii_only: bool, pieces: list[int]) -> None:
    line = json.dumps(message(content), ensure_ascii=ascii_only).encode()
    data, cut = shortened(line, pieces, 10_000, 100_000)
    assert data == message(content) and not cut


@settings(max_examples=300, deadline=None)
@given(
    content=contents,
    ascii_only=st.booleans(),
    pieces=st.lists(st.integers(1, 9), max_size=30),
    string_bytes=st.integers(1, 40),
    line_bytes=st.integers(1, 200),
)
def test_a_longer_line_stays_valid_json_holding_a_beginning_of_each_text(
    content: Any, ascii_only: bool, pieces: list[int], string_bytes: int, line_bytes: int
) -> None:
    line = json.dumps(message(content), ensure_ascii=ascii_only).encode()
    data, _ = shortened(line, pieces, string_bytes, line_bytes)  # valid JSON, or json.loads raised
    found = user_text(data)
    if found is not None and isinstance(content, str):
        text, _ = found  # what was cut in a character's bytes or a surrogate pair ends as one replacement character
        assert content.startswith(text.rstrip("\ufffd")) and len(text) <= len(content)


def test_a_30_mb_line_is_cut_at_the_cap_and_read_in_pieces() -> None:
    big = json.dumps(message("ab\\n" * 10_000_000)).encode() + b"\n" + json.dumps(message("next")).encode() + b"\n"
    longest = max(len(piece) for piece in _pieces(io.BytesIO(big)))
    assert longest <= 64 * 1024
    first, second = read_lines(io.BytesIO(big))
    assert first.cut and first.number == 1 and second.data == message("next") and not second.cut
    text, cut = user_text(first.data) or ("", False)
    assert cut and len(text) == MAX_CHARS and text.startswith("ab\\nab\\n")


def test_many_blocks_are_stopped_at_an_element_and_closed() -> None:
    blocks = [{"type": "text", "text": f"part {i}"} for i in range(500_000)]
    (line,) = read_lines(io.StringIO(json.dumps(message(blocks)) + "\n"))
    assert line.cut and line.data["message"]["content"][0] == {"type": "text", "text": "part 0"}
    assert len(json.dumps(line.data)) < 3_000_000
