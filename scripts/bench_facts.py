"""Figures for the fact index (catcode/memory/recall/facts.py): search latency at 10k and 100k facts next to a naive
linear ``in`` scan, the ranking alone with and without its refinements (ranking.py: what they cost), the latency of
questions made only of common words (stop words, and the most frequent content words), what the ranking budget
trades for that (how often the bounded top 10 equals the unbounded top 10), and the time of a full sync of 10,000
memories.

The corpus and the query mix are synthetic and deterministic (``random.Random(seed)``): English-like prose with a
Zipf word distribution, code identifiers, CJK sentences; queries are content words, questions, identifiers
(whole and partial), CJK words of 2+ characters, hostile strings (FTS5 operators, quotes, a 10 KB paste) and
misses. ``python scripts/bench_facts.py`` prints the figures; the lead's scripts/bench.py imports the functions.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import structlog

from catcode.memory.recall.facts import FactsIndex
from catcode.memory.recall.facts_schema import FactSource
from catcode.memory.recall.fts_query import split_facts

_ENGLISH_TEXT = """
the a to of and in is for on with that it as be this by we use from not run user test file config build server client
cache token session memory editor project branch commit deploy release database query index schema migration api
endpoint request response error timeout retry logging metrics docker kubernetes python rust typescript vim emacs
terminal shell script lint format review prefer always never should because fast slow bug fix feature flag setting
default path directory module package version dependency install upgrade remove rename refactor split merge rebase
conflict pipeline ci staging production secret
"""
# Pseudo-words are built from English-like syllables, so their letter trigrams are spread roughly as in English
# (a small syllable set would make every trigram common and every substring search slow).
_ONSET_TEXT = "b c d f g h j k l m n p r s t v w z br cr dr fl gr pl pr sh st str th tr ch"
_VOWEL_TEXT = "a e i o u ai ea ou io"
_CODA_TEXT = "n r s t l m ck nd st ng"
_CJK_TEXT = """
用户 偏好 编辑器 配置 数据库 测试 部署 服务器 缓存 日志 版本 分支 提交 合并 重构 接口 请求 响应
错误 超时 重试 项目 模块 依赖 安装 升级 删除 文件 目录 路径 会话 记忆 令牌 性能 监控 发布 生产
环境 变量 设置 默认 格式 检查 代码 审查 总是 从不 应该 因为 快速 缓慢 修复 功能
"""
_ENGLISH = _ENGLISH_TEXT.split()
_ONSETS = ["", *_ONSET_TEXT.split()]
_VOWELS = _VOWEL_TEXT.split()
_CODAS = ["", "", *_CODA_TEXT.split()]
_CJK = _CJK_TEXT.split()
_HOSTILE = [
    '"',
    '""',
    "AND",
    "OR NOT",
    "NEAR(vim editor, 2)",
    "c++",
    "*",
    "^vim",
    "kind:foo",
    "(unbalanced",
    "[x",
    "🎉 emoji 🎉",
    "a' OR '1'='1",
    "x" * 10_000,
    "   ",
    "col:val* -neg +pos",
    "{braces}",
]


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    words = list(dict.fromkeys(_ENGLISH))
    while len(words) < size:
        syllables = (rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_CODAS) for _ in range(rng.randint(2, 3)))
        word = "".join(syllables)
        if word not in words:
            words.append(word)
    return words


class _Corpus:
    """A deterministic generator of facts and queries."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.words = _vocabulary(self.rng, 4000)
        self.weights = [1.0 / (rank + 1) for rank in range(len(self.words))]
        pick = self.rng.choice
        self.identifiers = [
            pick(
                [
                    f"{pick(self.words).title()}{pick(self.words).title()}",
                    f"{pick(self.words)}_{pick(self.words)}",
                    f"{pick(self.words)}.{pick(self.words)}.{pick(self.words)}",
                    f"get_{pick(self.words)}",
                ]
            )
            for _ in range(1500)
        ]

    def fact(self) -> str:
        rng = self.rng
        if rng.random() < 0.15:
            cjk = "".join(rng.choice(_CJK) for _ in range(rng.randint(3, 6)))
            return f"{cjk} {rng.choice(self.words)} {rng.choice(_CJK)}。"
        words = rng.choices(self.words, self.weights, k=rng.randint(6, 14))
        if rng.random() < 0.3:
            words.insert(rng.randrange(len(words)), f"`{rng.choice(self.identifiers)}`")
        if rng.random() < 0.1:
            words.append(f"{rng.randint(1, 4)}.{rng.randint(0, 20)}")
        return " ".join(words).capitalize() + "."

    def sources(self, count: int, facts_each: int = 3) -> list[FactSource]:
        return [
            FactSource(f"memory-{i}", "memory", "2026-08-06", " ".join(self.fact() for _ in range(facts_each)))
            for i in range(count)
        ]

    def queries(self, count: int) -> list[str]:
        rng, content = self.rng, self.words[30:]
        makers: list[tuple[float, Callable[[], str]]] = [
            (0.30, lambda: " ".join(rng.sample(content, rng.randint(1, 2)))),
            (0.10, lambda: f"how do I {rng.choice(content)} the {rng.choice(content)}"),
            (0.12, lambda: rng.choice(self.identifiers)),
            (0.08, lambda: rng.choice(self.identifiers)[1:-1]),
            (0.15, lambda: rng.choice(_CJK) + (rng.choice(_CJK) if rng.random() < 0.5 else "")),
            (0.15, lambda: rng.choice(_HOSTILE)),
            (0.10, lambda: "".join(rng.choice("qxzj") for _ in range(6))),
        ]
        weights = [w for w, _ in makers]
        return [rng.choices(makers, weights)[0][1]() for _ in range(count)]


def _percentiles(samples_ns: list[int]) -> tuple[float, float]:
    ms = sorted(s / 1e6 for s in samples_ns)
    return statistics.median(ms), ms[min(len(ms) - 1, int(len(ms) * 0.95))]


def _time_search(index: FactsIndex, queries: list[str]) -> list[int]:
    for query in queries[:100]:  # warm the page cache
        index.search(query)
    samples = []
    for query in queries:
        start = time.perf_counter_ns()
        index.search(query)
        samples.append(time.perf_counter_ns() - start)
    return samples


_COMMON_ONLY = ["what did we do", "the and of to", "is it the one", "user test file", "config server build", "the user"]
"""Questions of stop words only, and of the most frequent content words of the synthetic vocabulary."""


def _budget_agreement(index: FactsIndex, queries: list[str]) -> tuple[float, int]:
    """Share of multi-word queries whose bounded top 10 is the unbounded BM25 top 10, and how many were cut."""
    from catcode.memory.recall.query import parse_query
    from catcode.memory.recall.ranking import RANK_BUDGET, rank_documents

    same = cut = 0
    with index._lock:  # the bench reads the index's one connection directly, as its search does
        conn = index._conn
        assert conn is not None
        for query in queries:
            parsed = parse_query(query)
            bounded = [doc for doc, _ in rank_documents(conn, parsed, 10)]
            exact = [doc for doc, _ in rank_documents(conn, parsed, 10, budget=10**9)]
            total = conn.execute(
                "SELECT count(*) FROM docs_word WHERE docs_word MATCH ?", (parsed.word_expr(),)
            ).fetchone()[0]
            cut += total > RANK_BUDGET
            same += bounded == exact
    return same / max(1, len(queries)), cut


def _time_ranking(index: FactsIndex, queries: list[str]) -> tuple[list[int], list[int]]:
    """The ranking's first pass alone (``bm25_ranked`` over the query's terms) and the whole ranking
    (``rank_documents``: first pass and refinements), top 10 of the same parsed queries."""
    from catcode.memory.recall.query import parse_query
    from catcode.memory.recall.ranking import RANK_BUDGET, bm25_ranked, rank_documents

    first, whole = [], []
    parsed = [p for p in map(parse_query, queries) if not p.empty]
    with index._lock:  # the bench reads the index's one connection directly, as its search does
        conn = index._conn
        assert conn is not None
        for query in parsed:
            start = time.perf_counter_ns()
            bm25_ranked(conn, query.quoted_terms, 10, "", RANK_BUDGET)
            first.append(time.perf_counter_ns() - start)
            start = time.perf_counter_ns()
            rank_documents(conn, query, 10)
            whole.append(time.perf_counter_ns() - start)
    return first, whole


def _time_naive(facts: list[str], queries: list[str]) -> list[int]:
    """The baseline: lowercase substring test over every fact, first ten kept."""
    lowered = [f.lower() for f in facts]
    samples = []
    for query in queries:
        needle = query.strip().lower()[:512]
        start = time.perf_counter_ns()
        [f for f in lowered if needle and needle in f][:10]
        samples.append(time.perf_counter_ns() - start)
    return samples


def bench_search(seed: int = 7, n_queries: int = 2000) -> dict[str, float]:
    """Search p50/p95 (ms) at 10,000 and 100,000 facts, the naive scan's, their ratios, and the build time."""
    with structlog.testing.capture_logs():  # the index logs each sync; a bench prints nothing
        return _bench_search(seed, n_queries)


def _bench_search(seed: int, n_queries: int) -> dict[str, float]:
    figures: dict[str, float] = {}
    for n_facts in (10_000, 100_000):
        corpus = _Corpus(seed)
        sources = corpus.sources(n_facts // 3 + 1)
        queries = corpus.queries(n_queries)
        with tempfile.TemporaryDirectory() as tmp, closing(FactsIndex(Path(tmp) / "facts.db")) as index:
            start = time.perf_counter()
            index.sync(sources)
            build = time.perf_counter() - start
            p50, p95 = _percentiles(_time_search(index, queries))
            first, whole = _time_ranking(index, queries)
            first50, first95 = _percentiles(first)
            rank50, rank95 = _percentiles(whole)
            facts = [fact for s in sources for fact in split_facts(s.text)]
            naive50, naive95 = _percentiles(_time_naive(facts, queries[:300]))
            common50, common95 = _percentiles(_time_search(index, _COMMON_ONLY * 20))
            questions = [q for q in queries if len(q.split()) > 1 and q.isascii() and len(q) < 80][:300]
            agreement, cut = _budget_agreement(index, questions + _COMMON_ONLY)
        label = f"{n_facts // 1000}k"
        figures |= {
            f"common_words_p50_ms_{label}": common50,
            f"common_words_p95_ms_{label}": common95,
            f"bounded_top10_same_as_unbounded_{label}": agreement,
            f"queries_over_rank_budget_{label}": float(cut),
            f"search_p50_ms_{label}": p50,
            f"search_p95_ms_{label}": p95,
            f"ranking_first_pass_p50_ms_{label}": first50,
            f"ranking_first_pass_p95_ms_{label}": first95,
            f"ranking_refined_p50_ms_{label}": rank50,
            f"ranking_refined_p95_ms_{label}": rank95,
            f"naive_p50_ms_{label}": naive50,
            f"naive_p95_ms_{label}": naive95,
            f"naive_ratio_p50_{label}": naive50 / p50,
            f"naive_ratio_p95_{label}": naive95 / p95,
            f"index_build_ms_{label}": build * 1000,
        }
    return figures


def bench_rebuild(seed: int = 11, n_memories: int = 10_000) -> dict[str, float]:
    """Full sync of 10,000 memories (~3 facts each) into an empty facts.db, a no-change re-sync, a re-sync after
    one memory changed."""
    with structlog.testing.capture_logs():
        return _bench_rebuild(seed, n_memories)


def _bench_rebuild(seed: int, n_memories: int) -> dict[str, float]:
    corpus = _Corpus(seed)
    sources = corpus.sources(n_memories)
    with tempfile.TemporaryDirectory() as tmp, closing(FactsIndex(Path(tmp) / "facts.db")) as index:
        start = time.perf_counter()
        index.sync(sources)
        full = time.perf_counter() - start
        start = time.perf_counter()
        index.sync(sources)
        unchanged = time.perf_counter() - start
        start = time.perf_counter()
        index.sync([FactSource("memory-0", "memory", "2026-08-07", corpus.fact()), *sources[1:]])
        one_changed = time.perf_counter() - start
        facts = index.count()
    return {
        "rebuild_ms_10k_memories": full * 1000,
        "resync_unchanged_ms_10k_memories": unchanged * 1000,
        "resync_one_changed_ms_10k_memories": one_changed * 1000,
        "facts_indexed": float(facts),
    }


if __name__ == "__main__":
    import json
    import sys

    sys.stdout.write(json.dumps({**bench_search(), **bench_rebuild()}, indent=2) + "\n")
