"""A model-free check that text about to leave the edge does not quote its documents.

Every run of ``n`` consecutive words (lowercased, punctuation dropped) of every chunk is hashed into a set;
an outbound text that contains any such run is a leak. Chunks overlap, so the set covers every run of every
document. The set is rebuilt when the store's generation moves (a document was added, changed or deleted).
Memory: one 8-byte hash per word of the corpus (a 150-document edge: ~0.1 M words, a few MB).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def ngrams(text: str, n: int) -> Iterator[tuple[str, ...]]:
    w = words(text)
    for i in range(len(w) - n + 1):
        yield tuple(w[i : i + n])


class LeakGuard:
    """Finds runs of ``n`` words an outbound text shares with the edge's documents."""

    def __init__(self, texts: Callable[[], Iterable[str]], generation: Callable[[], int], n: int = 8) -> None:
        if n < 3:
            raise ValueError(f"leak_ngram_words={n} would flag ordinary phrases; use 3 or more")
        self._texts = texts
        self._generation = generation
        self.n = n
        self._hashes: set[int] = set()
        self._built_at: int | None = None
        self._lock = threading.Lock()

    def shared_run(self, text: str) -> str | None:
        """The first run of ``n`` words ``text`` shares with a document, or None."""
        self._refresh()
        for gram in ngrams(text, self.n):
            if hash(gram) in self._hashes:
                return " ".join(gram)
        return None

    def _refresh(self) -> None:
        generation = self._generation()
        with self._lock:
            if self._built_at == generation:
                return
            self._hashes = {hash(g) for t in self._texts() for g in ngrams(t, self.n)}
            self._built_at = generation
