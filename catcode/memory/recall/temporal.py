"""Time in questions and in text: ``asks_when`` (a question about a time) and ``has_date_expression`` (text that
names one), for the ranking's answer-type prior: a "when" question is answered by a turn that says when —
"Last Saturday.", "The opening is August 12th", "上周二" — more often than by one that only shares its words.

Both are general patterns of English and Chinese — weekday and month names, ordinal days, ISO dates, clock times,
years, "yesterday", "last week", "上周", "三号" — not words of any corpus."""

from __future__ import annotations

import re

__all__ = ["asks_when", "has_date_expression"]

_WHEN = re.compile(
    r"\bwhen\b|\b(?:what|which)\s+(?:date|day|month|year|time)\b|\bhow\s+long\s+ago\b|什么时候|哪一?天|几号|几月|何时",
    re.IGNORECASE,
)
_DATE_EXPRESSION = re.compile(
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b"
    r"|\b(?:january|february|april|june|july|august|september|october|november|december|(?-i:May|March))\b"
    r"|\b(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?\s+\d{1,2}\b"
    r"|\b(?:yesterday|today|tomorrow|tonight|weekend|ago)\b"
    r"|\b(?:last|next|this)\s+(?:week|month|year|night|morning|afternoon|evening|spring|summer|autumn|fall|winter)\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)\b|\b\d{4}-\d\d-\d\d\b|\b\d{1,2}:\d\d\b|\b(?:19|20)\d\d\b"
    r"|[0-9一二三四五六七八九十]+[号日月]|星期|礼拜|周[一二三四五六日末]|[昨今明前后]天|[上下这本]周|[上下这]个月|[今去明前]年",
    re.IGNORECASE,
)


def asks_when(question: str) -> bool:
    """True when ``question`` asks about a time: "When did…", "What day…", "How long ago…", "什么时候…"."""
    return bool(_WHEN.search(question))


def has_date_expression(text: str) -> bool:
    """True when ``text`` names a time: a weekday or month, a date, a clock time, a year, "yesterday", "last week",
    "上周", "三号"…"""
    return bool(_DATE_EXPRESSION.search(text))
