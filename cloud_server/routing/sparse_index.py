"""Sparse matching of questions against summaries (BM25 over each summary's text and key names), for stage 1 of
routing: a question naming an entity that a summary names should find it even when the embeddings disagree.

An inverted index from term to the summaries holding it, kept in step with the cloud's summary index.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from shared.core.lexical import STOP_WORDS
from shared.core.lexical import terms as lexical_terms

_STOP = STOP_WORDS | frozenset("knowledge subgraph summary article articles report according news".split())
"""Function words, and the words every summary uses."""
K1, B = 1.2, 0.75
"""BM25's usual term-saturation and length-normalisation constants."""
KEY_NAME_REPEAT = 2
"""A summary's key names count this many times over (they name what the summary is about)."""


def terms(text: str) -> list[str]:
    """Lower-cased words of three or more characters that are not function words or summary boilerplate."""
    return lexical_terms(text, _STOP)


class SparseIndex:
    """BM25 over summaries by id; not thread-safe (the summary index holds its lock around every call)."""

    def __init__(self) -> None:
        self._postings: dict[str, dict[str, int]] = {}
        self._terms: dict[str, list[str]] = {}
        self._lengths: dict[str, int] = {}
        self._total_length = 0

    def add(self, summary_id: str, text: str, key_names: tuple[str, ...]) -> None:
        self.remove(summary_id)
        counts = Counter(terms(text))
        for name in key_names:
            for term in terms(name):
                counts[term] += KEY_NAME_REPEAT
        for term, tf in counts.items():
            self._postings.setdefault(term, {})[summary_id] = tf
        length = sum(counts.values())
        self._terms[summary_id] = list(counts)
        self._lengths[summary_id] = length
        self._total_length += length

    def remove(self, summary_id: str) -> None:
        length = self._lengths.pop(summary_id, None)
        if length is None:
            return
        self._total_length -= length
        for term in self._terms.pop(summary_id, []):
            posting = self._postings[term]
            del posting[summary_id]
            if not posting:
                del self._postings[term]

    def scores(self, question: str, among: Sequence[str] | None = None) -> dict[str, float]:
        """BM25 of every summary sharing a term with ``question`` (of those ``among``, when given), divided by the
        best (so in (0, 1])."""
        n = len(self._lengths)
        if not n:
            return {}
        # BM25's length normalisation, tf + K1 * (1 - B + B * length / mean), as tf + fixed + per_length * length
        fixed, per_length = K1 * (1 - B), K1 * B / max(self._total_length / n, 1e-9)
        lengths = self._lengths
        out: dict[str, float] = {}
        wanted = set(among) if among is not None else None
        for term in set(terms(question)):
            posting = self._postings.get(term)
            if not posting:
                continue
            weight = math.log(1 + (n - len(posting) + 0.5) / (len(posting) + 0.5)) * (K1 + 1)
            if wanted is not None and len(wanted) < len(posting):  # walk the shorter of the two
                for sid in wanted:
                    if tf := posting.get(sid):
                        out[sid] = out.get(sid, 0.0) + weight * tf / (tf + fixed + per_length * lengths[sid])
            else:
                for sid, tf in posting.items():
                    if wanted is None or sid in wanted:
                        out[sid] = out.get(sid, 0.0) + weight * tf / (tf + fixed + per_length * lengths[sid])
        best = max(out.values(), default=0.0)
        return {sid: s / best for sid, s in out.items()} if best > 0 else {}
