"""Text for the fact index: safe FTS5 queries from any user text, CJK spacing, snippets, and split_facts.

FTS5 has a query language of its own (AND/OR/NOT/NEAR, ``col:`` filters, ``*``, ``^``, parentheses); user text
must never reach it raw. The query is tokenised here and every term is quoted as an FTS5 string, so the
tokenizer only ever sees characters, never operators.

The word index uses unicode61, which keeps a run of CJK characters as one token. To make a two-character CJK
query ("偏好") match inside a longer run ("用户偏好"), indexed text and queries put a space around every CJK
character: a CJK word becomes a phrase of single characters, matched by position (``"偏 好"``).

Over the usual 250 lines on purpose: queries and indexed facts go through the same text rules (CJK spacing,
punctuation, control characters), and one module keeps the two halves in step.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_QUERY_CHARS = 512
"""A 10 KB paste is cut here: nobody searches memory with more, and each term costs an index lookup."""
MAX_TERMS = 16
MAX_TERM_CHARS = 64
SNIPPET_CHARS = 200

_CJK_CLASS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002ffff"
_CJK_CHAR = re.compile(f"([{_CJK_CLASS}])")
_CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")
_WORD = re.compile(r"\w+")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# Punctuation that wraps a term rather than belonging to it: `get_token`, (c++), "vim", setup.py.
_EDGE_PUNCT = "*^\"'`()[]{}<>,;:!?.。，、！？；：「」『』（）【】《》“”‘’…"
# Only consulted when the query has other terms: searching "how do I use vim" means "vim", and these
# words sit in most facts, so matching them costs time and adds nothing to the ranking.
_STOPWORD_LIST = """a an and are as at be by do does for from how i in is it me my of on or the that this to was what
when where which who why with you"""
_STOPWORDS = frozenset(_STOPWORD_LIST.split())


def clean_text(text: str) -> str:
    """Make ``text`` safe to bind to SQLite: lone surrogates replaced, control characters (NUL...) removed."""
    text = text.encode("utf-8", "replace").decode("utf-8")
    return _CONTROL.sub(" ", text)


def spaced_cjk(text: str) -> str | None:
    """``text`` with a space around each CJK character, or None when it has none (the common case)."""
    return _CJK_CHAR.sub(r" \1 ", text) if _CJK_CHAR.search(text) else None


def _quote(term: str) -> str:
    """An FTS5 string literal: inside double quotes nothing is an operator; a quote is written twice."""
    return '"' + term.replace('"', '""') + '"'


def _trigrams(chunk: str) -> list[str]:
    """Trigrams at offsets 0, 3, 6… plus the last one: together they cover every character of ``chunk``."""
    offsets = list(range(0, len(chunk) - 2, 3))
    if offsets[-1] != len(chunk) - 3:
        offsets.append(len(chunk) - 3)
    return list(dict.fromkeys(chunk[o : o + 3] for o in offsets))


def _word_tokens(chunk: str) -> list[str]:
    """The tokens of one chunk for the OR fallback: words as they are, CJK runs as overlapping bigrams."""
    tokens: list[str] = []
    for word in _WORD.findall(chunk):
        pos = 0
        for run in _CJK_RUN.finditer(word):
            if run.start() > pos:
                tokens.append(word[pos : run.start()])
            text = run.group()
            tokens.extend([text] if len(text) == 1 else [text[i : i + 2] for i in range(len(text) - 1)])
            pos = run.end()
        if pos < len(word):
            tokens.append(word[pos:])
    return tokens


@dataclass(frozen=True)
class ParsedQuery:
    """A user query cut into terms, ready to become FTS5 expressions that can never be a syntax error."""

    chunks: tuple[str, ...]
    """Whitespace-separated pieces with wrapping punctuation stripped: ``c++``, ``os.path.join``, ``偏好``."""
    tokens: tuple[str, ...]
    """Word tokens and CJK bigrams, for the OR fallback."""

    @property
    def empty(self) -> bool:
        """True when nothing searchable is left (empty, whitespace or punctuation-only query)."""
        return not self.chunks

    def word_expr(self, op: str) -> str | None:
        """The word-table expression: chunks as phrases joined by AND, or single tokens joined by OR."""
        terms = [c for c in self.chunks if _WORD.search(c)] if op == "AND" else list(self.tokens)
        return f" {op} ".join(_quote(spaced_cjk(t) or t) for t in terms) or None

    @property
    def substrings(self) -> list[str]:
        """Chunks of 3+ characters, searched as substrings in the trigram table (shorter ones match nothing)."""
        return [c for c in self.chunks if len(c) >= 3]

    def trigram_expr(self, op: str) -> str | None:
        """The trigram-table candidate filter: each substring as an AND of its disjoint trigrams, joined by ``op``.

        Three times fewer trigrams than the phrase FTS5 would build, and no position checks: about twice as fast.
        It admits a few false positives, which ``substring_score`` rejects."""
        groups = ["(" + " AND ".join(_quote(t) for t in _trigrams(c)) + ")" for c in self.substrings]
        return f" {op} ".join(groups) or None

    @property
    def has_symbols(self) -> bool:
        """True when a chunk is more than one word (``c++``, ``os.path.join``): the word index alone is lossy."""
        return any(not _WORD.fullmatch(c) for c in self.chunks)

    def contains_all(self, text: str) -> bool:
        """True when every chunk occurs in ``text`` as typed (ignoring case)."""
        lowered = text.lower()
        return all(c.lower() in lowered for c in self.chunks)

    def substring_score(self, text: str, op: str) -> float | None:
        """Occurrences of the substrings in ``text`` per length (shorter facts first, as in BM25), or None when
        ``text`` lacks one (AND) or all (OR) of them."""
        lowered = text.lower()
        counts = [lowered.count(c.lower()) for c in self.substrings]
        if not any(counts) or (op == "AND" and not all(counts)):
            return None
        return sum(counts) * 100 / (len(text) + 50)

    @property
    def short_chunks(self) -> list[str]:
        """Chunks under 3 characters: only a bounded LIKE scan can find them inside longer words."""
        return [c for c in self.chunks if len(c) < 3]

    def needles(self) -> list[str]:
        """Strings to look for in a hit's text to centre its snippet, longest first."""
        return sorted({t.lower() for t in (*self.chunks, *self.tokens)}, key=len, reverse=True)


def parse_query(query: str) -> ParsedQuery:
    """Cut any text into at most ``MAX_TERMS`` distinct chunks; never raises."""
    text = clean_text(query[: MAX_QUERY_CHARS * 2])[:MAX_QUERY_CHARS]
    chunks: list[str] = []
    seen: set[str] = set()
    for piece in text.split():
        chunk = piece.strip(_EDGE_PUNCT)[:MAX_TERM_CHARS]
        if chunk and chunk.lower() not in seen:
            seen.add(chunk.lower())
            chunks.append(chunk)
    content = [c for c in chunks if c.lower() not in _STOPWORDS]
    chunks = (content or chunks)[:MAX_TERMS]
    tokens = list(dict.fromkeys(t for c in chunks for t in _word_tokens(c)))
    return ParsedQuery(tuple(chunks), tuple(tokens[: MAX_TERMS * 2]))


def like_pattern(chunk: str) -> str:
    """A LIKE pattern matching ``chunk`` anywhere, with ``%``, ``_`` and the escape character escaped."""
    escaped = chunk.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def make_snippet(text: str, needles: list[str], width: int = SNIPPET_CHARS) -> str:
    """At most ``width`` characters of ``text``, centred on the first needle found (start of text otherwise)."""
    if len(text) <= width:
        return text
    lowered = text.lower()
    found = [p for p in (lowered.find(n) for n in needles if n) if p >= 0]
    # lower() can change the length of a few characters; a position past the end is just a worse centre.
    pos = min(min(found, default=0), len(text))
    start = max(0, min(pos - width // 3, len(text) - width + 1))
    end = start + width - 2
    return ("…" if start else "") + text[start:end].strip() + ("…" if end < len(text) else "")


# -- cutting text into facts ---------------------------------------------------------------------------------

MAX_FACT_CHARS = 400
_FRONTMATTER = re.compile(r"\A---\n.*?\n---[ \t]*(?:\n|\Z)", re.DOTALL)
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_ITEM = re.compile(r"^\s*(?:[-*+•·]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")
# A western boundary needs whitespace after the mark, so "setup.py", "3.40.1" and "a.b" never split;
# a CJK full stop ends a sentence with or without a space.
_BOUNDARY = re.compile(r"([.!?…]+[\"'”’)\]]*)\s+|([。！？]+[」』”’）]*)\s*")
_ABBREVIATION_LIST = "e.g i.e etc vs cf al approx incl esp fig no nr mr mrs ms dr prof st jr sr inc ltd u.s viz resp"
_ABBREVIATIONS = frozenset(_ABBREVIATION_LIST.split())


def _is_abbreviation(before: str) -> bool:
    """True when the word ending at a full stop is an abbreviation ("e.g.") or an initial ("J.")."""
    word = before.rsplit(None, 1)[-1].lstrip("(\"'") if before.strip() else ""
    return word.lower() in _ABBREVIATIONS or (len(word) == 1 and word.isupper())


def _sentences(paragraph: str) -> list[str]:
    """Split prose at sentence ends, but not after abbreviations or before a lowercase continuation."""
    pieces, start = [], 0
    for m in _BOUNDARY.finditer(paragraph):
        if m.group(1):
            full_stop = m.group(1).startswith(".")
            following = paragraph[m.end() : m.end() + 1]
            if full_stop and (following.islower() or _is_abbreviation(paragraph[: m.start()])):
                continue
        pieces.append(paragraph[start : m.end(1) if m.group(1) else m.end(2)])
        start = m.end()
    pieces.append(paragraph[start:])
    return pieces


def _join(left: str, right: str) -> str:
    """Join wrapped lines; CJK text has no spaces between words, so none is added between two CJK lines."""
    if left and right and _CJK_CHAR.match(left[-1]) and _CJK_CHAR.match(right[0]):
        return left + right
    return f"{left} {right}".strip()


def _cap(fact: str) -> str:
    """Cut a very long fact at a word boundary near ``MAX_FACT_CHARS``."""
    if len(fact) <= MAX_FACT_CHARS:
        return fact
    cut = fact[: MAX_FACT_CHARS - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > MAX_FACT_CHARS // 2 else cut).rstrip() + "…"


def split_facts(text: str) -> list[str]:
    """Cut markdown or prose into atomic facts: one per list item (wrapped lines joined), one per code line,
    one per sentence of a paragraph; headings, rules and YAML front matter dropped; duplicates removed."""
    text = _FRONTMATTER.sub("", clean_text(text.replace("\r\n", "\n").replace("\r", "\n")))
    blocks: list[tuple[str, str]] = []  # ("item" | "prose", text); items are never split into sentences
    in_code = False
    for raw in text.split("\n"):
        if _FENCE.match(raw):
            in_code = not in_code
            continue
        line = _QUOTE.sub("", raw)
        item = _ITEM.match(line)
        if in_code or line.lstrip().startswith("|"):
            blocks.append(("item", line.strip()))
        elif not line.strip() or _HEADING.match(line):
            blocks.append(("break", ""))
        elif item:
            blocks.append(("item", line[item.end() :].strip()))
        elif blocks and blocks[-1][0] == "item" and raw[:1].isspace() and blocks[-1][1]:
            blocks[-1] = ("item", _join(blocks[-1][1], line.strip()))  # an indented continuation of an item
        elif blocks and blocks[-1][0] == "prose":
            blocks[-1] = ("prose", _join(blocks[-1][1], line.strip()))
        else:
            blocks.append(("prose", line.strip()))
    facts: dict[str, None] = {}
    for kind, block in blocks:
        for piece in _sentences(block) if kind == "prose" else [block]:
            fact = " ".join(piece.split())
            if _WORD.search(fact):
                facts.setdefault(_cap(fact), None)
    return list(facts)
