"""Questions in queries and in text: ``is_question`` (a query that wants an answer) and ``only_asks`` (text whose
last word is a question), for the ranking's answer prior: a turn or a memory that ends by asking — "So how was the
first watercolour class?", "How's the knee?" — shares the words of a question about the same thing but does not
answer it; the turn that does ("A pear. Just a pear.") seldom shares them.

General patterns of English and Chinese (a question mark, an interrogative first word), not words of any corpus."""

from __future__ import annotations

import re

__all__ = ["is_question", "only_asks"]

_QUESTION_MARKS = ("?", "？")
_INTERROGATIVE = re.compile(
    r"^\s*(?:what|when|where|which|who|whom|whose|why|how|is|are|was|were|do|does|did|can|could|should|would|will"
    r"|has|have|had)\b|什么|怎么|为什么|哪|谁|多少|几|吗\s*$",
    re.IGNORECASE,
)


def is_question(query: str) -> bool:
    """True when ``query`` asks something: it ends with a question mark, or starts with an interrogative word
    ("how do I run the tests"), or is a Chinese question ("为什么…", "…吗")."""
    return query.rstrip().endswith(_QUESTION_MARKS) or bool(_INTERROGATIVE.search(query))


def only_asks(text: str) -> bool:
    """True when ``text`` ends with a question mark: whatever it says first, it hands the word to the other side
    ("Oh lovely. How old is she now?")."""
    return text.rstrip().endswith(_QUESTION_MARKS)
