"""Words for lexical matching: a question's lexical coverage by a set of texts, and the texts ranked by BM25.

A question's informative words weigh by how rare they are among the texts (IDF): when every edge knows the same
people and places, the words that tell edges apart are the rare ones ("protein supplements", not "Li Hua"). The
same postings rank texts by Okapi BM25, the lexical half of hybrid retrieval: an option, a path or a name the
question spells out is found by its words where an embedding of the question may miss it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'-]*")
STOP_WORDS = frozenset(
    """
    the and for are was were with from that this these those what which who whom whose when where why how does did
    has have had been being into than then them they their there about after before while also more most other
    such only over under both same
    """.split()
)
BM25_K1 = 1.2
"""How fast a word's repeats in one text stop adding to its score (Okapi BM25's usual value)."""
BM25_B = 0.75
"""How much a long text's score is discounted for its length (Okapi BM25's usual value)."""
RRF_K = 60
"""Reciprocal rank fusion's constant: an item ranked r-th (from 0) in a list gains 1 / (RRF_K + 1 + r)."""


def terms(text: str, stop: frozenset[str] = STOP_WORDS) -> list[str]:
    """Lower-cased words of three or more characters that are not in ``stop``."""
    words = (w.strip("'-").lower() for w in _WORD.findall(text))
    return [w for w in words if len(w) >= 3 and w not in stop]


class LexicalIndex:
    """Which texts hold which words, how often, for :meth:`coverage` and :meth:`ranked`. Built once from
    (key, text) pairs; not updated in place."""

    def __init__(self, texts: Iterable[tuple[int, str]], generation: int = 0) -> None:
        self.generation = generation
        """The store generation the texts were read at (the owner rebuilds when it moves on)."""
        self._postings: dict[str, list[tuple[int, int]]] = {}
        self._lengths: dict[int, int] = {}
        for key, text in texts:
            words = terms(text)
            self._lengths[key] = len(words)
            for word, count in Counter(words).items():
                self._postings.setdefault(word, []).append((key, count))
        self.size = len(self._lengths)
        self._mean_length = sum(self._lengths.values()) / self.size if self.size else 0.0

    def idf(self, word: str) -> float:
        """How rare ``word`` is among the texts: log((n + 1) / (df + 0.5)), > 0; highest for a word none holds."""
        return math.log((self.size + 1) / (len(self._postings.get(word, ())) + 0.5))

    def coverage(self, question: str) -> float:
        """The largest IDF-weighted share of the question's words that one text holds, in [0, 1]; 0 without words.

        A word no text holds weighs the most and is held by none, so an index that lacks the question's rare words
        scores low however well it matches its common ones."""
        words = set(terms(question))
        if not words or not self.size:
            return 0.0
        weights = {w: self.idf(w) for w in words}
        held: dict[int, float] = {}
        for word, weight in weights.items():
            for key, _ in self._postings.get(word, ()):
                held[key] = held.get(key, 0.0) + weight
        return min(max(held.values(), default=0.0) / sum(weights.values()), 1.0)

    def ranked(self, question: str, limit: int) -> list[tuple[int, float]]:
        """The ``limit`` texts with the highest Okapi BM25 score for the question's words, as (key, score), best
        first (ties by key); texts holding none of its words are left out."""
        scores: dict[int, float] = {}
        for word in set(terms(question)):
            postings = self._postings.get(word, ())
            idf = math.log(1 + (self.size - len(postings) + 0.5) / (len(postings) + 0.5))
            for key, count in postings:
                norm = 1 - BM25_B + BM25_B * self._lengths[key] / self._mean_length
                scores[key] = scores.get(key, 0.0) + idf * count * (BM25_K1 + 1) / (count + BM25_K1 * norm)
        return sorted(scores.items(), key=lambda t: (-t[1], t[0]))[:limit]


def fuse_ranks(lists: Sequence[Sequence[int]]) -> dict[int, float]:
    """Each key's reciprocal rank fusion over ``lists`` (each best first), scaled to [0, 1]: 1 is first in all."""
    fused: dict[int, float] = {}
    for ranked in lists:
        for rank, key in enumerate(ranked):
            fused[key] = fused.get(key, 0.0) + 1 / (RRF_K + 1 + rank)
    top = len(lists) / (RRF_K + 1) if lists else 1.0
    return {key: score / top for key, score in fused.items()}
