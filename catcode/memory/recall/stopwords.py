"""Stop words: the standard English list that search leaves out of a question when other words remain.

The list is the Snowball project's English stop word list with the contraction pieces a word tokenizer leaves
("don", "t", "ll", "ve"...), as the NLTK corpus ships it (179 words). No list of our own and no words chosen for a
benchmark: a standard list keeps the ranking honest on text we have never seen. On the recall corpus
(scripts/bench_retrieval.py) it ranks better than both no list and a 1,300-word one (the ``stop-words`` package),
which drops content words such as "area", "changes" or "big". Left out of the terms is not thrown away: the ranking
weighs a question's stop words lightly among the documents its other words match (``ranking.py``). Chinese
questions need none: their two-character phrases carry BM25 weights of their own, and a list of single characters
measured no better."""

from __future__ import annotations

__all__ = ["STOPWORDS", "is_stopword"]

_NLTK_ENGLISH = """
i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves he him his himself
she she's her hers herself it it's its itself they them their theirs themselves what which who whom this that that'll
these those am is are was were be been being have has had having do does did doing a an the and but if or because as
until while of at by for with about against between into through during before after above below to from up down in
out on off over under again further then once here there when where why how all any both each few more most other
some such no nor not only own same so than too very s t can will just don don't should should've now d ll m o re ve y
ain aren aren't couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma mightn
mightn't mustn mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't weren weren't won won't wouldn wouldn't
"""
STOPWORDS = frozenset(_NLTK_ENGLISH.split())


def is_stopword(word: str) -> bool:
    """True for a stop word in any case, with a typographic apostrophe ("don’t") or a plain one."""
    return word.lower().replace("\u2019", "'") in STOPWORDS
