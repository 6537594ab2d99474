"""What a person types, as FTS5 expressions that can never be a syntax error: ``parse_query`` → ``ParsedQuery``.

FTS5 has a query language of its own (AND/OR/NOT/NEAR, ``col:`` filters, ``*``, ``^``, parentheses); user text
must never reach it raw. The query is cut into terms here and every term is quoted as an FTS5 string, so the
tokenizer only ever sees characters, never operators.

- **Terms for BM25** (``ParsedQuery.terms``): each word, stop words left out (the standard English list in
  ``stopwords.py``) unless nothing else is left, so "how do I use vim" ranks by "use vim" and "what did we do"
  still answers; a chunk joined by symbols (``os.path.join``, ``3.12``) as one phrase; a CJK run as its
  overlapping two-character phrases (a CJK character is a token of its own in the index, see ``fts_query``)
  less those that are Chinese function words ("什么", "我们", ``stopwords.py``) unless nothing else is left.
  The ranking joins them with OR: BM25 then prefers the facts holding the rarer words.
- **Verb forms** (``ParsedQuery.forms``): a word that is a form of an irregular verb is searched with the verb's
  other forms as alternatives (``irregular_verbs.py``), so "go" finds "went" and "bought" finds "buy" — the
  stemmer only joins regular forms.
- **Stop words** (``ParsedQuery.stopwords``): the stop words left out of the terms, which the ranking still uses
  as weak evidence among the documents the terms match.
- **When-questions** (``ParsedQuery.asks_when``): "when…", "what day…", "什么时候…": the ranking then prefers the
  documents that hold a date expression (``temporal.py``).
- **Questions** (``ParsedQuery.asks``): the ranking then puts documents that end by asking below those that do
  not (``questions.py``).
- **Chunks** (``ParsedQuery.chunks``): the whitespace-separated pieces as typed (wrapping punctuation stripped),
  for the substring (trigram) search of identifiers and CJK words that the word index cannot split out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from catcode.memory.recall.fts_query import CJK_RUN, clean_text, spaced_cjk
from catcode.memory.recall.irregular_verbs import verb_forms
from catcode.memory.recall.questions import is_question
from catcode.memory.recall.stopwords import is_cjk_stopword, is_stopword
from catcode.memory.recall.temporal import asks_when

__all__ = ["MAX_QUERY_CHARS", "MAX_TERMS", "ParsedQuery", "parse_query", "quote"]

MAX_QUERY_CHARS = 512
"""A 10 KB paste is cut here: nobody searches memory with more, and each term costs an index lookup."""
MAX_TERMS = 16
MAX_TERM_CHARS = 64

_WORD = re.compile(r"\w+")
# Punctuation that wraps a term rather than belonging to it: `get_token`, (c++), "vim", setup.py.
_EDGE_PUNCT = "*^\"'`()[]{}<>,;:!?.。，、！？；：「」『』（）【】《》“”‘’…"


def quote(term: str) -> str:
    """An FTS5 string literal: inside double quotes nothing is an operator; a quote is written twice."""
    return '"' + term.replace('"', '""') + '"'


def _trigrams(chunk: str) -> list[str]:
    """Trigrams at offsets 0, 3, 6… plus the last one: together they cover every character of ``chunk``."""
    offsets = list(range(0, len(chunk) - 2, 3))
    if offsets[-1] != len(chunk) - 3:
        offsets.append(len(chunk) - 3)
    return list(dict.fromkeys(chunk[o : o + 3] for o in offsets))


def _chunk_terms(chunk: str, keep_stopwords: bool) -> list[str]:
    """The BM25 terms of one chunk: its words (a phrase when symbols join several), CJK runs as bigram phrases."""
    words: list[str] = []
    terms: list[str] = []
    for word in _WORD.findall(chunk):
        pos = 0
        for run in CJK_RUN.finditer(word):
            if run.start() > pos:
                words.append(word[pos : run.start()])
            text = run.group()
            terms.extend([text] if len(text) == 1 else [text[i : i + 2] for i in range(len(text) - 1)])
            pos = run.end()
        if pos < len(word):
            words.append(word[pos:])
    words = [w.lower() for w in words if keep_stopwords or not is_stopword(w)]
    if words:
        terms.insert(0, " ".join(words))  # "os path join" is a phrase: the words must be adjacent
    return terms


@dataclass(frozen=True)
class ParsedQuery:
    """A user query cut into terms, ready to become FTS5 expressions that can never be a syntax error."""

    chunks: tuple[str, ...]
    """Whitespace-separated pieces with wrapping punctuation stripped: ``c++``, ``os.path.join``, ``偏好``."""
    terms: tuple[str, ...]
    """BM25 terms: words (stemmed by the index), phrases of words joined by symbols, CJK bigrams."""
    stopwords: tuple[str, ...] = ()
    """The stop words of the query, lowercase, when they were left out of ``terms`` (none when only stop words
    were typed: then they are the terms)."""
    asks_when: bool = False
    """True for a question about a time ("When did…", "什么时候…")."""
    asks: bool = False
    """True for a question ("…?", "how do I…", "为什么…"): the ranking then prefers documents that do not only ask."""

    @property
    def empty(self) -> bool:
        """True when nothing searchable is left (empty, whitespace or punctuation-only query)."""
        return not self.chunks and not self.terms

    @staticmethod
    def forms(term: str) -> tuple[str, ...]:
        """``term`` and, for a word that is a form of an irregular verb, the verb's other forms that are not stop
        words: ``forms("go") == ("go", "goes", "gone", "went")``."""
        return (term, *(f for f in verb_forms(term) if not is_stopword(f)))

    @property
    def quoted_terms(self) -> list[str]:
        """Each term as an FTS5 string (CJK characters spaced, matching the index)."""
        return [quote(spaced_cjk(t) or t) for t in self.terms]

    @property
    def verb_alternatives(self) -> list[str]:
        """The other forms of the irregular verbs among the terms, as FTS5 strings (none already a term)."""
        found = dict.fromkeys(f for t in self.terms for f in self.forms(t)[1:] if f not in self.terms)
        return [quote(f) for f in found]

    @property
    def quoted_stopwords(self) -> list[str]:
        """``stopwords`` as FTS5 strings."""
        return [quote(w) for w in self.stopwords]

    def word_expr(self) -> str | None:
        """Every term joined by OR: the expression BM25 ranks and the snippet is chosen with."""
        return " OR ".join(self.quoted_terms) or None

    @property
    def substrings(self) -> list[str]:
        """Chunks of 3+ characters, searched as substrings in the trigram table (shorter ones match nothing)."""
        return [c for c in self.chunks if len(c) >= 3]

    def trigram_expr(self, op: str) -> str | None:
        """The trigram-table candidate filter: each substring as an AND of its disjoint trigrams, joined by ``op``.

        Three times fewer trigrams than the phrase FTS5 would build, and no position checks: about twice as fast.
        It admits a few false positives, which ``substring_score`` rejects."""
        groups = ["(" + " AND ".join(quote(t) for t in _trigrams(c)) + ")" for c in self.substrings]
        return f" {op} ".join(groups) or None

    @property
    def has_symbols(self) -> bool:
        """True when a chunk is more than one word (``c++``, ``os.path.join``): the word index alone is lossy."""
        return any(not _WORD.fullmatch(c) for c in self.chunks)

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

    def fact_score(self, text: str) -> tuple[int, int]:
        """How well a fact answers the query, to pick a hit's snippet among its source's facts: how many terms it
        holds (a word counts when a word of the fact starts with its first letters, so "painted" finds
        "painting" as the stemmer would), then shorter first."""
        words = _WORD.findall(text.lower())
        joined, starts = " ".join(words), set(words)
        held = 0
        for term, stems in self._word_stems:
            if stems:
                held += any(w.startswith(stems) for w in starts)
            else:
                held += term in joined  # a phrase of words, or CJK characters (inside a run of their own)
        return held, -len(text)

    @cached_property
    def _word_stems(self) -> list[tuple[str, tuple[str, ...]]]:
        """Each term with the first letters of its forms that a fact's word must start with (none for a phrase or
        CJK characters, matched as they are)."""
        return [
            (t, () if " " in t or CJK_RUN.search(t) else tuple(f[: max(4, len(f) - 3)] for f in self.forms(t)))
            for t in self.terms
        ]

    def needles(self) -> list[str]:
        """Strings to look for in a hit's text to centre its snippet, longest first."""
        found = {c.lower() for c in self.chunks} | {w for t in self.terms for f in self.forms(t) for w in f.split()}
        return sorted(found, key=len, reverse=True)


def parse_query(query: str) -> ParsedQuery:
    """Cut any text into at most ``MAX_TERMS`` distinct chunks and terms; never raises."""
    text = clean_text(query[: MAX_QUERY_CHARS * 2])[:MAX_QUERY_CHARS]
    chunks: list[str] = []
    seen: set[str] = set()
    for piece in text.split():
        chunk = piece.strip(_EDGE_PUNCT)[:MAX_TERM_CHARS]
        if chunk and chunk.lower() not in seen:
            seen.add(chunk.lower())
            chunks.append(chunk)
    content = [c for c in chunks if not is_stopword(c)]
    keep_stopwords = not content  # a question of stop words only ("what did we do?") is searched as it is
    # Single letters ("s" of "Joel's", "i") say nothing about what is asked: they are not kept.
    words = [] if keep_stopwords else [w for c in chunks for w in _WORD.findall(c.lower())]
    stops = [w for w in words if len(w) > 1 and is_stopword(w)]
    chunks = (content or chunks)[:MAX_TERMS]
    terms = [t for c in chunks for t in _chunk_terms(c, keep_stopwords)]
    terms = [t for t in terms if not is_cjk_stopword(t)] or terms  # "什么", "我们": not what is asked about
    return ParsedQuery(
        tuple(chunks),
        tuple(dict.fromkeys(terms))[:MAX_TERMS],
        tuple(dict.fromkeys(stops))[:MAX_TERMS],
        asks_when(text),
        is_question(text),
    )
