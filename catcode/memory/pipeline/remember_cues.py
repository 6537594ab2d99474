"""Did the person state something to remember? A cheap test (regular expressions, no model call) over what the
person typed in the messages still waiting for extraction, so that a short session whose point was a preference,
a rule or a correction ("use vim, never touch the tests directory") is captured at exit however few messages it
has, while an ordinary short session costs nothing at exit (``extract_min_messages`` still applies to it).

What counts (``docs/memory-first-session.md`` is the user's version; ``tests/data/memory/short_sessions.jsonl``
measures it, false positives included):
- asking to remember: "remember …", "keep in mind", "don't forget", "note that", "记住", "记得", "别忘了";
- a standing rule: "from now on", "going forward", "in future", "next time", "from here on", "以后 …", "今后",
  "从现在开始", "每次", "一律";
- a rule stated as an instruction at the start of a clause: "never …", "always …", "don't …/do not …" followed by a
  verb, "别 …", "不要 …", "总是 …", "永远", "务必";
- a preference or a correction: "I prefer", "I'd rather", "I like to", "we use", "our convention", "instead of",
  "that's wrong", "not X but Y"-style "no, use/it's …", "我喜欢/我偏好/我习惯", "而不是", "不是…而是".

Only the person's own text counts (never the model's answers, tool output or a pasted file). The patterns keep
to the imperative position ("never touch", not "I never saw"; "别改", not "特别" or "别的"), which is where a
rule is stated and where a complaint or a question ("this test always fails", "do you remember…?") is not."""

from __future__ import annotations

import re
from collections.abc import Iterable

from catcode.conversation.messages import Message, Role

_CLAUSE = r"(?:^|[,;:.!?\n(]\s*|\b(?:and|but|so|please|also|just|pls)\s+)"
"""Where an instruction starts: the text's start, after punctuation, or after a joining word."""

_ENGLISH = re.compile(
    "|".join(
        [
            rf"{_CLAUSE}(?:please\s+)?remember\b(?!\s+(?:when|what|where|why|how|if|whether)\b)",
            r"\b(?:keep|bear)\s+in\s+mind\b",
            r"\bdon'?t\s+forget\b",
            rf"{_CLAUSE}note\s+that\b",
            r"\bfrom\s+now\s+on\b",
            r"\bgoing\s+forward\b",
            r"\bfrom\s+here\s+on\b",
            r"\bin\s+(?:the\s+)?future\b",
            r"\bnext\s+time\b",
            r"\bevery\s+time\s+you\b",
            rf"{_CLAUSE}never\s+(?!mind\b)[a-z]",
            rf"{_CLAUSE}always\s+[a-z]",
            rf"{_CLAUSE}(?:don'?t|do\s+not)\s+(?!(?:know|worry|think|understand|see|get|care|mind|bother)\b)[a-z]",
            r"\bi\s+(?:prefer|would\s+rather|like\s+to\s+use)\b",
            r"\bi\s+(?:always|never)\s+(?:use|want|write|run|commit|push|deploy|put|keep|work|edit)\b",
            r"\bi'd\s+rather\b",
            r"\bwe\s+(?:use|prefer|always|never|don'?t)\b",
            r"\bour\s+(?:convention|rule|policy|style)\b",
            r"\binstead\s+of\b",
            r"\bthat(?:'s|\s+is)\s+(?:wrong|not\s+right|incorrect)\b",
            r"(?:^|[.!?]\s*)no,\s+(?:use|it'?s|we|the|that|you|don'?t)\b",
            r"\bmy\s+(?:preference|preferred)\b",
        ]
    ),
    re.IGNORECASE,
)

_NOT_BIE = "特区分类识级告个性辨派鉴差职"
"""Characters before 别 that make a word (特别, 区别, 分别...): not the imperative 别."""

_CHINESE = re.compile(
    "|".join(
        [
            r"记住|记得|别忘",
            r"(?:^|[，,。；;：:！!\s]|从今|请)以后(?![的呢吗])",
            r"今后|从现在(?:开始|起)|每次都?|一律|统一用",
            rf"(?<![{_NOT_BIE}])别(?![的人名墅处样])",
            r"(?<!要)不要(?!紧)",
            r"(?:^|[，,。；;：:！!\s]|请|要|你要)总是(?:用|使用|先|加|写|运行|跑|带|保持|检查|把|给)",
            r"永远(?:不要|别|用|不)|务必",
            r"我(?:更)?(?:喜欢|偏好|习惯|倾向)",
            r"而不是|不是[^，,。]{1,20}而是",
        ]
    )
)


def states_something_to_remember(text: str) -> bool:
    """True when ``text`` (something the person typed) asks to remember, states a rule, a preference or a
    correction, in English or Chinese."""
    if not text:
        return False
    if _ENGLISH.search(text):
        return True
    return bool(_CHINESE.search(text))


def person_stated_something(messages: Iterable[Message]) -> bool:
    """Whether any message the person typed (user text, not tool results) states something to remember."""
    return any(m.role is Role.USER and not m.is_tool_result and states_something_to_remember(m.text) for m in messages)
