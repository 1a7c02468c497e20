"""Words for lexical matching, and the lexical coverage of a question by a set of texts.

A question's informative words weigh by how rare they are among the texts (IDF): when every edge knows the same
people and places, the words that tell edges apart are the rare ones ("protein supplements", not "Li Hua").
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'-]*")
STOP_WORDS = frozenset(
    """
    the and for are was were with from that this these those what which who whom whose when where why how does did
    has have had been being into than then them they their there about after before while also more most other
    such only over under both same
    """.split()
)


def terms(text: str, stop: frozenset[str] = STOP_WORDS) -> list[str]:
    """Lower-cased words of three or more characters that are not in ``stop``."""
    words = (w.strip("'-").lower() for w in _WORD.findall(text))
    return [w for w in words if len(w) >= 3 and w not in stop]


class LexicalIndex:
    """Which texts hold which words, for :meth:`coverage`. Built once from the texts; not updated in place."""

    def __init__(self, texts: Iterable[str], generation: int = 0) -> None:
        self.generation = generation
        """The store generation the texts were read at (the owner rebuilds when it moves on)."""
        self._postings: dict[str, list[int]] = {}
        self.size = 0
        for position, text in enumerate(texts):
            self.size = position + 1
            for word in set(terms(text)):
                self._postings.setdefault(word, []).append(position)

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
            for position in self._postings.get(word, ()):
                held[position] = held.get(position, 0.0) + weight
        return min(max(held.values(), default=0.0) / sum(weights.values()), 1.0)
