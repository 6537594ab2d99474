"""The retrieval-quality benchmark: a hand-written corpus of multi-session conversations, questions tagged with the
turns that answer them, the metrics, and an Okapi BM25 baseline to compare any ranker against in the same run.

The corpus lives in ``tests/data/recall_bench/``: one JSON file per conversation (``{"id", "title", "language",
"speakers", "sessions": [{"id", "date", "turns": [{"id", "speaker", "text"}]}]}``) and ``questions.json``
(``[{"id", "conversation", "question", "gold": [turn ids], "kinds": [...]}]``). Half the conversations are a
developer and a coding agent working on a project across sessions; half are casual chats between two people about
their lives. Some are mostly Chinese, some mix Chinese and English.

A ranker under test is a ``search`` callable: it gets a :class:`Question` and returns turn ids, best first.
:func:`evaluate` scores it with any-gold@k (the top k holds at least one gold turn) and MRR. The test suite
(``tests/test_recall_bench.py``) checks the corpus; ``scripts/bench_retrieval.py`` reports the figures.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

CORPUS_DIR = Path(__file__).resolve().parent / "data" / "recall_bench"
"""Where the committed corpus lives."""

KINDS = ("paraphrase", "keyword", "identifier", "date", "cjk", "context", "multi")
"""Question kinds: few words shared with the answer; a shared rare word; a code identifier, file or version;
"when did…"; a Chinese question; an answer that is a short reply meaningful only with its neighbours; two gold
turns."""

DEFAULT_KS = (1, 5, 10, 25)
"""The cut-offs any-gold@k is reported at."""


@dataclass(frozen=True)
class Turn:
    """One utterance: ``id`` is ``<conversation>-s<session>-t<n>``; ``date`` is its session's date."""

    id: str
    conversation: str
    session: str
    date: str
    speaker: str
    text: str


@dataclass(frozen=True)
class Session:
    """A dated sitting of a conversation, its turns in order."""

    id: str
    date: str
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Conversation:
    """A multi-session conversation between ``speakers``; ``language`` is ``en``, ``zh`` or ``mixed``."""

    id: str
    title: str
    language: str
    speakers: tuple[str, ...]
    sessions: tuple[Session, ...]

    @property
    def turns(self) -> tuple[Turn, ...]:
        """Every turn of every session, in order."""
        return tuple(turn for session in self.sessions for turn in session.turns)


@dataclass(frozen=True)
class Question:
    """A question about one conversation, the ids of the turns that answer it, and its kinds (see :data:`KINDS`)."""

    id: str
    conversation: str
    question: str
    gold: tuple[str, ...]
    kinds: tuple[str, ...]


@dataclass(frozen=True)
class Corpus:
    """The conversations by id and the questions, in file order."""

    conversations: dict[str, Conversation]
    questions: tuple[Question, ...]

    @property
    def turns(self) -> dict[str, Turn]:
        """Every turn of every conversation by id."""
        return {turn.id: turn for conv in self.conversations.values() for turn in conv.turns}


def _conversation(data: dict) -> Conversation:
    sessions = tuple(
        Session(
            id=s["id"],
            date=s["date"],
            turns=tuple(
                Turn(
                    id=t["id"],
                    conversation=data["id"],
                    session=s["id"],
                    date=s["date"],
                    speaker=t["speaker"],
                    text=t["text"],
                )
                for t in s["turns"]
            ),
        )
        for s in data["sessions"]
    )
    return Conversation(data["id"], data["title"], data["language"], tuple(data["speakers"]), sessions)


def load_corpus(directory: Path = CORPUS_DIR) -> Corpus:
    """Read every conversation file and ``questions.json`` from ``directory``."""
    conversations = {}
    for path in sorted(directory.glob("*.json")):
        if path.name == "questions.json":
            continue
        conv = _conversation(json.loads(path.read_text(encoding="utf-8")))
        conversations[conv.id] = conv
    raw = json.loads((directory / "questions.json").read_text(encoding="utf-8"))
    questions = tuple(
        Question(q["id"], q["conversation"], q["question"], tuple(q["gold"]), tuple(q["kinds"])) for q in raw
    )
    return Corpus(conversations, questions)


def split(corpus: Corpus) -> tuple[list[str], list[str]]:
    """The conversations in two halves, each kind (developer, casual; English, Chinese, mixed) in both: the first,
    third, fifth… of each kind to choose settings on (tuning), the others to report (held out). A figure reported on
    the held-out half was never looked at while choosing, as a conversation nobody has seen."""
    tuning: list[str] = []
    held_out: list[str] = []
    for prefix in ("dev", "chat"):
        ids = sorted(cid for cid in corpus.conversations if cid.startswith(prefix))
        tuning += ids[0::2]
        held_out += ids[1::2]
    return tuning, held_out


def _first_gold_rank(ranked: Sequence[str], gold: Iterable[str]) -> int | None:
    wanted = set(gold)
    for rank, turn_id in enumerate(ranked, 1):
        if turn_id in wanted:
            return rank
    return None


def evaluate(
    search: Callable[[Question], list[str]], questions: Iterable[Question], ks: Sequence[int] = DEFAULT_KS
) -> dict[str, float]:
    """Score ``search`` over ``questions``: ``any_gold@k`` for each k (the share of questions whose top k holds at
    least one gold turn) and ``mrr`` (mean of 1/rank of the first gold turn in the whole returned list, 0 when none
    is returned). Also ``questions``, how many were asked. Duplicate ids in a ranking count at their first place."""
    hits = dict.fromkeys(ks, 0)
    reciprocal = 0.0
    count = 0
    for question in questions:
        count += 1
        ranked = list(dict.fromkeys(search(question)))
        rank = _first_gold_rank(ranked, question.gold)
        if rank is None:
            continue
        reciprocal += 1.0 / rank
        for k in ks:
            if rank <= k:
                hits[k] += 1
    figures: dict[str, float] = {f"any_gold@{k}": hits[k] / count if count else 0.0 for k in ks}
    figures["mrr"] = reciprocal / count if count else 0.0
    figures["questions"] = count
    return figures


def evaluate_by_kind(
    search: Callable[[Question], list[str]], questions: Iterable[Question], ks: Sequence[int] = DEFAULT_KS
) -> dict[str, dict[str, float]]:
    """:func:`evaluate` over all questions (key ``all``) and over the questions of each kind that has any."""
    questions = list(questions)
    rankings = {q.id: search(q) for q in questions}
    by_kind: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        for kind in q.kinds:
            by_kind[kind].append(q)

    def cached(q: Question) -> list[str]:
        return rankings[q.id]

    result = {"all": evaluate(cached, questions, ks)}
    for kind in KINDS:
        if by_kind[kind]:
            result[kind] = evaluate(cached, by_kind[kind], ks)
    return result


_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+")


def tokenize(text: str) -> list[str]:
    """The plain tokenisation of the baseline: lowercase, runs of word characters split on anything else, and every
    CJK ideograph a token of its own (so a Chinese sentence is not one giant token). No stemming, no stop words."""
    return _TOKEN.findall(text.lower())


class BM25Baseline:
    """Okapi BM25 (``rank_bm25.BM25Okapi``, k1 1.5, b 0.75) with :func:`tokenize`, one document per turn.

    Two scopes. ``pooled=False`` (the default) ranks only the turns of the question's own conversation, as a
    benchmark that keeps one store per conversation does: IDF is computed per conversation. ``pooled=True`` ranks
    every turn of every conversation in one index, as a memory store that holds everything does; it is the harder
    setting. Like a search engine, it returns only the turns that share at least one token with the question (score
    above zero), best first; ties keep corpus order. Call the instance as a ``search`` for :func:`evaluate`."""

    def __init__(self, corpus: Corpus, *, pooled: bool = False) -> None:
        from rank_bm25 import BM25Okapi  # a dev dependency: imported only when a baseline is built

        def build(turns: Sequence[Turn]) -> tuple[BM25Okapi, list[str]]:
            # rank_bm25 divides by the mean document length, so an empty turn still needs a token to count.
            return BM25Okapi([tokenize(t.text) or [""] for t in turns], k1=1.5, b=0.75), [t.id for t in turns]

        self.pooled = pooled
        if pooled:
            every = [turn for conv in corpus.conversations.values() for turn in conv.turns]
            self._indexes = {"*": build(every)}
        else:
            self._indexes = {cid: build(conv.turns) for cid, conv in corpus.conversations.items()}

    def __call__(self, question: Question) -> list[str]:
        """Ids of the turns in scope that match the question, by descending BM25 score."""
        index, ids = self._indexes["*" if self.pooled else question.conversation]
        scores = index.get_scores(tokenize(question.question))
        matching = sorted((i for i in range(len(ids)) if scores[i] > 0), key=lambda i: -scores[i])
        return [ids[i] for i in matching]
