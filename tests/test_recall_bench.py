"""The retrieval benchmark corpus is well formed and big enough, its metrics are right, and the BM25 baseline runs
over it with figures in the range the corpus was written for (rare words easy, paraphrases and short replies hard)."""

from __future__ import annotations

import re
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.recall_bench import (
    KINDS,
    BM25Baseline,
    Conversation,
    Corpus,
    Question,
    Session,
    Turn,
    evaluate,
    evaluate_by_kind,
    load_corpus,
    tokenize,
)

_CJK = re.compile(r"[\u3400-\u9fff]")
_MIXED = re.compile(r"[\u3400-\u9fff].*[A-Za-z]{3}|[A-Za-z]{3}.*[\u3400-\u9fff]")


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return load_corpus()


def test_corpus_meets_the_size_minimums(corpus: Corpus) -> None:
    questions = corpus.questions
    assert len(corpus.conversations) >= 24
    assert len(corpus.turns) >= 2200
    assert len(questions) >= 330
    assert sum("paraphrase" in q.kinds for q in questions) >= len(questions) / 3
    assert {kind for q in questions for kind in q.kinds} == set(KINDS)
    assert all(sum(q.conversation == cid for q in questions) >= 10 for cid in corpus.conversations)


def test_half_the_conversations_are_with_a_coding_agent(corpus: Corpus) -> None:
    with_agent = [c for c in corpus.conversations.values() if "assistant" in c.speakers]
    assert 10 <= len(with_agent) <= len(corpus.conversations) - 10
    assert all(len(c.speakers) == 2 for c in corpus.conversations.values())


def test_chinese_conversations_are_mostly_chinese_and_some_turns_mix_languages(corpus: Corpus) -> None:
    def share(conv: Conversation, pattern: re.Pattern[str]) -> float:
        return sum(bool(pattern.search(t.text)) for t in conv.turns) / len(conv.turns)

    languages = {c.language for c in corpus.conversations.values()}
    assert languages == {"en", "zh", "mixed"}
    chinese = [c for c in corpus.conversations.values() if c.language == "zh"]
    assert len(chinese) >= 3
    assert all(share(c, _CJK) >= 0.9 for c in chinese)
    for conv in corpus.conversations.values():
        if conv.language == "mixed":
            assert share(conv, _MIXED) >= 0.25, conv.id
        if conv.language == "en":
            assert share(conv, _CJK) == 0, conv.id
    assert sum(bool(_MIXED.search(t.text)) for t in corpus.turns.values()) >= 100


def test_sessions_are_dated_and_spread_over_weeks(corpus: Corpus) -> None:
    for conv in corpus.conversations.values():
        dates = [date.fromisoformat(s.date) for s in conv.sessions]
        assert len(dates) >= 5, conv.id
        assert dates == sorted(set(dates)), conv.id
        assert (dates[-1] - dates[0]).days >= 60, conv.id


def test_ids_are_unique_and_follow_the_pattern(corpus: Corpus) -> None:
    seen: set[str] = set()
    for conv in corpus.conversations.values():
        for s_index, session in enumerate(conv.sessions, 1):
            assert session.id == f"{conv.id}-s{s_index}"
            for t_index, turn in enumerate(session.turns, 1):
                assert turn.id == f"{conv.id}-s{s_index}-t{t_index}"
                assert turn.id not in seen
                seen.add(turn.id)
                assert turn.speaker in conv.speakers and turn.text.strip()
    question_ids = [q.id for q in corpus.questions]
    assert len(question_ids) == len(set(question_ids))


def test_every_gold_turn_exists_in_the_questions_conversation(corpus: Corpus) -> None:
    turns = corpus.turns
    for q in corpus.questions:
        assert q.conversation in corpus.conversations, q.id
        assert q.question.strip() and q.gold, q.id
        assert len(set(q.gold)) == len(q.gold), q.id
        for gold in q.gold:
            assert gold in turns, (q.id, gold)
            assert turns[gold].conversation == q.conversation, (q.id, gold)


def test_kinds_agree_with_the_question(corpus: Corpus) -> None:
    for q in corpus.questions:
        assert q.kinds and set(q.kinds) <= set(KINDS), q.id
        assert ("multi" in q.kinds) == (len(q.gold) >= 2), q.id
        assert ("cjk" in q.kinds) == bool(_CJK.search(q.question)), q.id


def test_context_answers_are_short_replies(corpus: Corpus) -> None:
    turns = corpus.turns
    context = [q for q in corpus.questions if "context" in q.kinds]
    short = [q for q in context if min(len(turns[g].text) for g in q.gold) <= 80]
    assert len(short) >= 0.75 * len(context)


def test_tokenize_is_plain_with_cjk_characters_alone() -> None:
    expected = ["set", "max_retries", "in", "userservice", "fetchall"]
    assert tokenize("Set MAX_RETRIES in UserService.fetchAll()!") == expected
    assert tokenize("它在周二上线了") == ["它", "在", "周", "二", "上", "线", "了"]
    assert tokenize("缓存TTL是600秒") == ["缓", "存", "ttl", "是", "600", "秒"]
    assert tokenize(" ... ") == []


def _tiny() -> tuple[list[Question], list[str]]:
    ids = [f"c-s1-t{n}" for n in range(1, 7)]
    questions = [
        Question("q1", "c", "one", ("c-s1-t1",), ("keyword",)),
        Question("q2", "c", "two", ("c-s1-t3",), ("keyword",)),
        Question("q3", "c", "three", ("c-s1-t5", "c-s1-t6"), ("multi",)),
    ]
    return questions, ids


def test_a_perfect_ranker_scores_one_and_a_reversed_one_less() -> None:
    questions, ids = _tiny()

    def perfect(q: Question) -> list[str]:
        return list(q.gold) + [i for i in ids if i not in q.gold]

    def reversed_(q: Question) -> list[str]:
        return list(reversed(perfect(q)))

    best = evaluate(perfect, questions, ks=(1, 5))
    assert best == {"any_gold@1": 1.0, "any_gold@5": 1.0, "mrr": 1.0, "questions": 3}
    worst = evaluate(reversed_, questions, ks=(1, 5))
    # q1 and q2 land last of 6; q3's two gold turns are last and second to last, so its first gold is 5th.
    assert worst["any_gold@1"] == 0.0
    assert worst["any_gold@5"] == pytest.approx(1 / 3)
    assert worst["mrr"] == pytest.approx((1 / 6 + 1 / 6 + 1 / 5) / 3)


def test_missing_answers_and_duplicates_are_scored_plainly() -> None:
    questions, _ = _tiny()
    assert evaluate(lambda q: [], questions, ks=(1,)) == {"any_gold@1": 0.0, "mrr": 0.0, "questions": 3}
    # A ranker repeating a wrong id does not push the gold turn down: duplicates count at their first place.
    figures = evaluate(lambda q: ["x", "x", "x", q.gold[0]], questions, ks=(1, 2))
    assert figures["any_gold@2"] == 1.0 and figures["mrr"] == pytest.approx(0.5)
    assert evaluate(lambda q: [], [], ks=(1,)) == {"any_gold@1": 0.0, "mrr": 0.0, "questions": 0}


@given(st.lists(st.permutations(range(8)), min_size=1, max_size=6), st.integers(1, 3))
def test_any_gold_grows_with_k_and_bounds_mrr(orders: list[list[int]], golds: int) -> None:
    gold = tuple(str(g) for g in range(golds))
    questions = [Question(f"q{n}", "c", "q", gold, ("keyword",)) for n in range(len(orders))]
    rankings = {q.id: [str(i) for i in order] for q, order in zip(questions, orders, strict=True)}
    figures = evaluate(lambda q: rankings[q.id], questions, ks=(1, 2, 4, 8))
    values = [figures[f"any_gold@{k}"] for k in (1, 2, 4, 8)]
    assert values == sorted(values) and values[-1] == 1.0
    assert values[0] <= figures["mrr"] <= 1.0


def test_bm25_ranks_a_turn_first_when_asked_with_its_own_words() -> None:
    turns = (
        Turn("c-s1-t1", "c", "c-s1", "2024-01-01", "A", "We set MAX_RETRIES to eight after the outage."),
        Turn("c-s1-t2", "c", "c-s1", "2024-01-01", "B", "Sounds good, let's do that."),
        Turn("c-s1-t3", "c", "c-s1", "2024-01-01", "A", "缓存过期时间改成五分钟。"),
    )
    conv = Conversation("c", "t", "mixed", ("A", "B"), (Session("c-s1", "2024-01-01", turns),))
    corpus = Corpus({"c": conv}, ())
    for pooled in (False, True):
        search = BM25Baseline(corpus, pooled=pooled)
        assert search(Question("q", "c", "what is MAX_RETRIES?", ("c-s1-t1",), ("identifier",)))[0] == "c-s1-t1"
        assert search(Question("q", "c", "过期时间是多少", ("c-s1-t3",), ("cjk",)))[0] == "c-s1-t3"
        assert search(Question("q", "c", "zebra", ("c-s1-t2",), ("keyword",))) == []


def test_bm25_baseline_scores_the_corpus_within_sane_bounds(corpus: Corpus) -> None:
    per_conversation = evaluate_by_kind(BM25Baseline(corpus), corpus.questions)
    pooled = evaluate_by_kind(BM25Baseline(corpus, pooled=True), corpus.questions)
    overall = per_conversation["all"]
    assert 0.2 <= overall["any_gold@5"] <= 0.6
    assert overall["any_gold@1"] <= overall["any_gold@5"] <= overall["any_gold@10"] <= overall["any_gold@25"]
    # The corpus is written so that lexical matching finds rare words and misses paraphrases and short replies.
    for easy in ("keyword", "identifier"):
        assert per_conversation[easy]["any_gold@5"] >= 0.75, easy
    for hard in ("paraphrase", "context"):
        assert per_conversation[hard]["any_gold@5"] <= 0.3, hard
    # Pooling every conversation's turns adds distractors: never easier than one conversation at a time.
    assert pooled["all"]["any_gold@5"] <= overall["any_gold@5"]
    assert pooled["all"]["questions"] == overall["questions"] == len(corpus.questions)


def test_the_bench_section_is_registered_and_runs() -> None:
    from scripts import bench
    from scripts.bench_retrieval import bench_bm25_baseline

    section = ("retrieval: BM25 baseline on the recall corpus", "bench_retrieval", "bench_bm25_baseline")
    assert section in bench.SECTIONS
    figures = bench_bm25_baseline()
    for scope in ("per-conversation", "pooled"):
        for metric in ("any_gold@1", "any_gold@5", "any_gold@10", "any_gold@25", "mrr"):
            assert 0.0 <= figures[f"{scope} {metric}"] <= 1.0
    assert figures["questions"] >= 330
