"""The refinements of the BM25 ranking as a person asking a question notices them: "go" finds "went", a stop word
tips the balance between two matches but never makes one, a when-question prefers the turn that says when, and
feedback words bring up the answer that shares no word with the question — without ever pushing the one exact
match off the top."""

from __future__ import annotations

import tempfile
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catcode.memory.recall.facts import FactsIndex
from catcode.memory.recall.facts_schema import FactSource, Hit
from catcode.memory.recall.irregular_verbs import verb_forms
from catcode.memory.recall.query import parse_query
from catcode.memory.recall.questions import is_question, only_asks
from catcode.memory.recall.temporal import asks_when, has_date_expression


def memory(name: str, text: str) -> FactSource:
    return FactSource(name, "memory", "2026-01-01", text, title=name)


def search(tmp_path: Path, sources: list[FactSource], query: str, limit: int = 10) -> list[Hit]:
    """Index ``sources`` (oldest first: among equal scores the later one ranks first) and search once."""
    with closing(FactsIndex(tmp_path / "facts.db")) as index:
        index.sync(sources)
        return index.search(query, limit)


def names(hits: list[Hit]) -> list[str]:
    return [h.source_id for h in hits]


NOISE = [memory(f"noise-{i}", f"Unrelated note {i} about kettles and teapots.") for i in range(5)]


# -- irregular verbs ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "answer", "other"),
    [
        ("When did Caroline go to the support group?", "Caroline went to a support group yesterday.",
         "Caroline runs the support group newsletter on Mondays."),
        ("Who went to the pottery fair?", "Ines will go to the pottery fair with her sister.",
         "Ines sells mugs at the pottery fair."),
        ("What did Nadia buy at the market?", "Nadia bought a heron print at the market.",
         "Nadia sketched herons at the market."),
        ("How did Joel's grandparents meet?", "They met at a dance in 1961, Joel's grandparents.",
         "Joel's grandparents live by the sea."),
    ],
)  # fmt: skip
def test_a_question_finds_the_answer_in_another_form_of_its_irregular_verb(
    tmp_path: Path, question: str, answer: str, other: str
) -> None:
    # The answer is the older memory: without the verb forms it only ties with (and loses to) the other one.
    hits = search(tmp_path, [memory("answer", answer), memory("other", other), *NOISE], question)
    assert names(hits)[:2] == ["answer", "other"]
    assert hits[0].snippet == answer


def test_a_form_of_the_verb_counts_less_than_the_word_asked_for(tmp_path: Path) -> None:
    sources = [memory("same-word", "We go to the lake on Sundays."), memory("past", "We went to the lake on Sundays.")]
    assert names(search(tmp_path, [*sources, *NOISE], "Where do we go on Sundays?")) == ["same-word", "past"]


def test_verb_forms_come_from_the_table_and_stop_words_are_not_searched() -> None:
    assert {"go", "gone", "goes"} <= set(verb_forms("went")) and verb_forms("bought") == ("buy",)
    assert verb_forms("painted") == () and verb_forms("read") == ()  # regular (the stemmer's), or one form only
    assert parse_query("Is it done?").forms("done") == ("done",)  # "do" and "did" are stop words
    assert parse_query("Did she go?").verb_alternatives == ['"goes"', '"gone"', '"went"']


# -- stop words, when-questions -----------------------------------------------------------------------------------


def test_a_stop_word_of_the_question_tips_the_balance_between_matches_but_never_makes_one(tmp_path: Path) -> None:
    # Without "where", the shorter memory would come first (BM25 normalises by length).
    where = memory("where", "Ollie proposed to Aiko on the beach where we swam.")
    other = memory("other", "Ollie proposed a new time for the call.")
    only_stop_words = memory("stop-words", "Where is it? Where was it?")
    hits = search(tmp_path, [where, other, only_stop_words, *NOISE], "Where did Ollie propose?")
    assert names(hits) == ["where", "other"]


@pytest.mark.parametrize(
    ("question", "first"),
    [("When did the exhibition open?", "dated"), ("How did the exhibition opening go?", "undated")],
)
def test_a_when_question_prefers_the_memory_that_says_when(tmp_path: Path, question: str, first: str) -> None:
    dated = memory("dated", "The exhibition opening is on August 12th, a Saturday, at six in the evening.")
    undated = memory("undated", "The exhibition opening was lovely.")
    assert names(search(tmp_path, [dated, undated, *NOISE], question))[0] == first


@pytest.mark.parametrize(
    ("question", "expected"),
    [("When did Pretzel come home?", True), ("What day is the demo?", True), ("他们什么时候出发？", True),
     ("How long ago was the outage?", True), ("Who adopted Pretzel?", False), ("Whenever you like", False)],
)  # fmt: skip
def test_when_questions_are_recognised(question: str, expected: bool) -> None:
    assert asks_when(question) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("We did! Last Saturday.", True), ("On the 27th.", True), ("Let's do production on May 6.", True),
     ("yep, 2023-04-02 at 23:12", True), ("他十月三号回来。", True), ("上周二上线了。", True),
     ("You may go now.", False), ("They march on.", False), ("Sounds good to me.", False)],
)  # fmt: skip
def test_date_expressions_are_recognised(text: str, expected: bool) -> None:
    assert has_date_expression(text) is expected


# -- questions: what only asks answers nothing -----------------------------------------------------------------


def test_a_question_prefers_the_memory_that_answers_to_the_one_that_asks_the_same(tmp_path: Path) -> None:
    # The asking turn holds both words of the question and is shorter: by its words alone it ranks first.
    asks = memory("asks", "So how was the watercolour class?")
    answers = memory("answers", "A pear, in watercolour. It looked like a potato.")
    question = "What did Nadia paint in the watercolour class?"
    assert names(search(tmp_path, [answers, asks, *NOISE], question)) == ["answers", "asks"]
    # A search that asks nothing ranks by the words alone.
    assert names(search(tmp_path, [answers, asks, *NOISE], "watercolour class")) == ["asks", "answers"]


def test_a_memory_that_only_asks_is_still_found_when_nothing_else_matches(tmp_path: Path) -> None:
    asks = memory("open-question", "Open question: should we move the build to uv?")
    assert names(search(tmp_path, [asks, *NOISE], "Should we move the build to uv?")) == ["open-question"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [("What did Nadia paint?", True), ("how do I run the tests", True), ("Did the deploy go out", True),
     ("婚礼为什么要改", True), ("他同意了吗", True), ("first watercolour class", False),
     ("use vim, never touch tests/", False), ("Whatever works", False), ("婚礼的场地", False)],
)  # fmt: skip
def test_questions_are_recognised(query: str, expected: bool) -> None:
    assert is_question(query) is expected
    assert parse_query(query).asks is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("How's the knee?", True), ("Oh lovely. How old is she now?", True), ("老家那场准备得怎么样了？", True),
     ("Four months. She screamed through the entire thing.", False), ("Is it? Yes, it is.", False)],
)  # fmt: skip
def test_text_that_ends_by_asking_is_recognised(text: str, expected: bool) -> None:
    assert only_asks(text) is expected


# -- pseudo-relevance feedback ------------------------------------------------------------------------------------


def test_feedback_words_bring_up_the_answer_that_shares_no_word_with_the_question(tmp_path: Path) -> None:
    away = memory("away", "Tomás flies to Mexico for three weeks of family holiday in March.")
    cover = memory("cover", "Ravi takes the on-call rota during the Mexico holiday weeks.")
    hits = search(tmp_path, [cover, away, *NOISE], "Who filled in for Tomás?")
    assert names(hits) == ["away", "cover"]


_WORDS = [a + b for a in ("lan", "har", "fer", "pep", "vio", "gar", "tic", "sum") for b in ("tern", "bour", "den")]
_TEXTS = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=12)


def _filler(doc: int, count: int) -> list[str]:
    """``count`` words of their own for document ``doc``: a long memory, whose words weigh little."""
    return [f"filler{doc}x{n}" for n in range(count)]


@given(
    matches=st.lists(st.tuples(_TEXTS, st.integers(0, 120)), min_size=1, max_size=3),
    crowd=st.lists(st.tuples(_TEXTS, st.integers(1, 4)), min_size=1, max_size=12),
    short_notes=st.integers(0, 30),
    asked=st.sampled_from(["zorblax", "What is the zorblax?", "zorblax setting?", "when was the zorblax"]),
)
def test_feedback_never_puts_a_document_without_the_asked_word_above_one_with_it(
    matches: list[tuple[list[str], int]], crowd: list[tuple[list[str], int]], short_notes: int, asked: str
) -> None:
    """The memories holding the rare word asked for come first — the only one of them first of all — however long
    they are, and however densely the others hold their other words (the feedback words)."""
    holding = [memory(f"match-{i}", " ".join(["zorblax", *w, *_filler(i, n)])) for i, (w, n) in enumerate(matches)]
    others = [memory(f"other-{i}", " ".join(words * times)) for i, (words, times) in enumerate(crowd)]
    notes = [memory(f"note-{i}", f"Note {i}.") for i in range(short_notes)]
    with tempfile.TemporaryDirectory() as tmp:
        hits = search(Path(tmp), [*holding, *others, *notes], asked, limit=len(holding) + len(others))
    assert set(names(hits)[: len(holding)]) == {m.source_id for m in holding}


def test_the_only_match_stays_first_when_another_memory_holds_its_words_more_densely(tmp_path: Path) -> None:
    words = "lantern harbour ferry pepper violin garden ticket summit canvas bakery"
    match = memory("match", " ".join(["zorblax", words, *_filler(0, 100)]))
    dense = memory("dense", " ".join([words] * 3))
    notes = [memory(f"note-{i}", f"Unrelated note {i} about kettles and teapots.") for i in range(30)]
    hits = search(tmp_path, [match, dense, *notes], "What is the zorblax?")
    assert names(hits) == ["match", "dense"]
    assert hits[1].score > hits[0].score  # by its feedback words alone it would rank first: the order keeps it second


# -- Chinese function words -----------------------------------------------------------------------------------------


def test_chinese_function_words_are_not_what_a_question_is_about() -> None:
    parsed = parse_query("为什么日志里有很多报错？我们怎么改的？")
    assert "日志" in parsed.terms and "报错" in parsed.terms
    assert not {"什么", "我们", "怎么"} & set(parsed.terms)
    assert parse_query("什么").terms == ("什么",)  # nothing else to search with: kept


def test_a_chinese_question_whose_answer_ranks_first_is_covered_by_it(tmp_path: Path) -> None:
    # Cut without a dictionary, the question's pieces that straddle two words ("么问", "端有") are in no memory; they
    # must not weigh as a name memory never heard of, or the answer's share falls under per-turn recall's gate.
    answer = memory("answer", "会话密钥不能返回给前端，改成只在服务端保存，前端只拿登录态。")
    sources = [answer, memory("other", "前端的按钮颜色改成蓝色。"), *NOISE]
    question = "把微信的会话密钥返回给前端有什么问题，我们怎么改的？"
    with closing(FactsIndex(tmp_path / "facts.db")) as index:
        index.sync(sources)
        assert names(index.search(question))[:1] == ["answer"]
        (covered,) = index.coverage(question, ["answer"])
    assert covered.share >= 0.25 and covered.specific  # 0.18 when they weighed double
