"""Stop words: the standard English list that search leaves out of a question when other words remain.

The list is the Snowball project's English stop word list with the contraction pieces a word tokenizer leaves
("don", "t", "ll", "ve"...), as the NLTK corpus ships it (179 words). No list of our own and no words chosen for a
benchmark: a standard list keeps the ranking honest on text we have never seen. On the recall corpus
(scripts/bench_retrieval.py) it ranks better than both no list and a 1,300-word one (the ``stop-words`` package),
which drops content words such as "area", "changes" or "big". Left out of the terms is not thrown away: the ranking
weighs a question's stop words lightly among the documents its other words match (``ranking.py``). Chinese
questions need no list of single characters (their two-character phrases carry BM25 weights of their own, and such a
list measured no better), but they do need the two-character function words ("什么", "怎么", "我们", "时候"): a
question's two-character phrases hold several, every memory in Chinese holds them too, and a memory that matches only
those is no answer (per-turn recall's gate counted them as much as the question's content). ``CJK_STOPWORDS`` are the
two-character entries of the stopwords-iso project's Chinese list (MIT licence), 451 words, as it ships them."""

from __future__ import annotations

__all__ = ["CJK_STOPWORDS", "STOPWORDS", "is_cjk_stopword", "is_stopword"]

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


_ISO_CHINESE_TWO_CHARACTERS = """
一个 一些 一何 一切 一则 一旦 一来 一样 一种 一般 万一 上下 不仅 不但 不光 不单 不只 不如 不妨
不尽 不得 不怕 不惟 不成 不拘 不料 不是 不比 不然 不特 不独 不管 不若 不论 不过 不问 与其 与否
且说 两者 个别 为了 为何 为止 为此 为着 乃至 之一 之类 乌乎 也好 也罢 二来 于是 云云 云尔 人们
人家 什么 介于 仍旧 从此 从而 他人 他们 以上 以为 以便 以免 以及 以故 以期 以来 以至 以致 任何
任凭 似的 但凡 但是 何以 何况 何处 何时 余外 作为 你们 使得 例如 依据 依照 便于 俺们 倘使 倘或
倘然 倘若 假使 假如 假若 光是 全体 全部 关于 其一 其中 其二 其他 其余 其它 其次 兼之 再则 再有
再者 再说 况且 几时 凡是 凭借 出于 出来 分别 则甚 别人 别处 别是 别的 别管 别说 前后 前此 前者
加之 加以 即令 即使 即便 即如 即或 即若 又及 及其 及至 反之 反而 受到 另外 另悉 只当 只怕 只是
只有 只消 只要 只限 叮咚 可以 可是 可见 各个 各位 各种 各自 同时 后者 向使 向着 否则 吧哒 呜呼
呵呵 呼哧 咱们 哈哈 哎呀 哎哟 哪个 哪些 哪儿 哪天 哪年 哪怕 哪样 哪边 哪里 哼唷 唯有 啪达 啷当
喔唷 嗡嗡 嘎登 嘿嘿 因为 因了 因此 因着 因而 固然 在下 在于 基于 处在 多么 多少 大家 她们 如上
如下 如何 如其 如同 如是 如果 如此 如若 始而 孰料 孰知 宁可 宁愿 宁肯 它们 对于 对待 对方 对比
尔后 尔尔 尚且 就是 就算 就要 尽管 岂但 已矣 巴巴 并且 庶乎 庶几 开外 开始 归齐 当地 当然 当着
彼时 彼此 得了 怎么 怎奈 怎样 总之 惟其 慢说 我们 或则 或是 或曰 或者 截至 所以 所在 所幸 所有
才能 打从 抑或 按照 据此 接着 故此 故而 旁人 无宁 无论 既往 既是 既然 时候 是以 是的 替代 有些
有关 有及 有时 有的 朝着 本人 本地 本着 本身 来着 来自 来说 极了 果然 果真 某个 某些 某某 根据
正值 正如 正巧 正是 此地 此处 此外 此时 此次 此间 毋宁 每当 比及 比如 比方 沿着 漫说 然则 然后
然而 照着 犹且 犹自 甚且 甚么 甚或 甚而 甚至 用来 由于 由是 由此 的确 的话 直到 省得 眨眼 着呢
矣乎 矣哉 竟而 等到 等等 类如 纵令 纵使 纵然 经过 结果 继之 继后 继而 罢了 而且 而况 而后 而外
而已 而是 而言 能否 自从 自后 自家 自己 自打 自身 至于 至今 至若 般的 若夫 若是 若果 若非 莫如
莫若 虽则 虽然 虽说 要不 要么 要是 譬喻 譬如 许多 设使 设或 设若 诚如 诚然 说来 诸位 诸如 谁人
谁料 谁知 贼死 赖以 起见 趁着 越是 较之 还是 还有 还要 这个 这么 这些 这儿 这时 这样 这次 这般
这边 这里 进而 连同 逐步 通过 遵循 遵照 那个 那么 那些 那儿 那时 那样 那般 那边 那里 鄙人 鉴于
针对 除了 除外 除开 除非 随后 随时 随着 非但 非徒 非特 非独 顺着 首先
"""
CJK_STOPWORDS = frozenset(_ISO_CHINESE_TWO_CHARACTERS.split())


def is_cjk_stopword(bigram: str) -> bool:
    """True for a two-character Chinese function word ("什么", "我们")."""
    return bigram in CJK_STOPWORDS
