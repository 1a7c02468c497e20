"""A model-free check that text about to leave the edge does not quote its documents.

The edge's chunks are indexed by :class:`shared.core.verbatim.CopyIndex` (runs of ``n`` words, runs with one word
swapped, whole short sentences, after normalising case, punctuation, invisible characters and digit
groupings); an outbound text holding any of them is a leak. Chunks overlap, so the index covers every run of
every document. It is rebuilt when the store's generation moves (a document was added, changed or deleted).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

from shared.core.verbatim import MIN_RUN_WORDS, CopyIndex


class LeakGuard:
    """Finds what an outbound text copies from the edge's documents."""

    def __init__(self, texts: Callable[[], Iterable[str]], generation: Callable[[], int], n: int = 8) -> None:
        if n < MIN_RUN_WORDS:
            raise ValueError(f"leak_ngram_words={n} would flag ordinary phrases; use {MIN_RUN_WORDS} or more")
        self._texts = texts
        self._generation = generation
        self.n = n
        self._index = CopyIndex((), n)
        self._built_at: int | None = None
        self._lock = threading.Lock()

    def shared_run(self, text: str) -> str | None:
        """The words of the first copy of a document in ``text``, or None."""
        return self._current().first_copy(text)

    def _current(self) -> CopyIndex:
        generation = self._generation()
        with self._lock:
            if self._built_at != generation:
                self._index = CopyIndex(self._texts(), self.n)
                self._built_at = generation
            return self._index
