"""Finding copied text: the runs of words a text shares with protected texts, in the form an attacker's transforms
leave them.

Both privacy checks use it: the edge's leak guard (an outbound summary, description or question against the
edge's own documents) and the cloud's answer guard (an answer against the other edges' texts that built it).

Texts are compared as their skeletons (shared.core.skeleton: accents, combining marks and invisible characters
dropped, look-alike letters of other scripts mapped to Latin ones, case folded, words split at ``_``, case changes
and digits, digit groupings such as ``1,000`` written as ``1000``). A text copies a protected text where it holds

- a run of ``n`` words of a protected text, or such a run with one of its inner words swapped;
- a whole protected sentence of ``min_sentence_words`` up to ``n - 1`` words (short sentences);
- ``LETTERS_PER_WORD * n`` letters in a row of a protected text, whatever the spacing, joining, spelling out
  or digits between them ("t h e q u i c k", "1.the 2.quick", "thequick");
- any of the above once a filler word repeated between the words is left out, or once the text is decoded
  (ROT13, a base64 run, every word reversed, the words or the whole text in reverse order, leetspeak): then the
  whole text counts as the copy.

Not caught: paraphrase, reordering other than reversal, translation, a word dropped inside a run, encodings other
than those.
Memory: ``n - 1`` 8-byte hashes per protected word and one per protected letter (a 100,000-word edge: about
12 MB).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from shared.core.skeleton import Word, skeleton_words, variants

_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|\n+")
MIN_RUN_WORDS = 3
LETTERS_PER_WORD = 5
"""A letters-only match must be this many letters per word of the word run (``n``) long."""
FILLER_MIN = 3
"""A word repeated at least this often (and in at least a quarter of the text's words) may be a filler."""


def tokens(text: str) -> list[Word]:
    """The skeleton words of ``text`` with their places."""
    return list(skeleton_words(text))


def words(text: str) -> list[str]:
    return [t.word for t in tokens(text)]


def _letters(toks: Sequence[Word]) -> tuple[str, list[int]]:
    """Only the letters of ``toks`` (spacing, joining, spelling out and digits ignored), and the index of the word
    each letter came from."""
    chars: list[str] = []
    owner: list[int] = []
    for i, t in enumerate(toks):
        for ch in t.word:
            if ch.isalpha():
                chars.append(ch)
                owner.append(i)
    return "".join(chars), owner


@dataclass(frozen=True)
class Copy:
    """Words ``first`` .. ``last`` (inclusive, indices into the checked text's words) copy a protected text."""

    first: int
    last: int
    kind: str
    """run, near_run (one word swapped), sentence, letters (letters in a row), filler (a run once a repeated
    word is left out) or encoded (a run in a decoding of the text)."""


class CopyIndex:
    """The protected texts' runs, short sentences and letter runs, hashed; :meth:`copies` finds them."""

    def __init__(self, texts: Iterable[str], n: int = 8, min_sentence_words: int = 4) -> None:
        if n < MIN_RUN_WORDS:
            raise ValueError(f"a run of {n} words would flag ordinary phrases; use {MIN_RUN_WORDS} or more")
        self.n = n
        self.letters = LETTERS_PER_WORD * n
        self.min_sentence_words = min(max(min_sentence_words, MIN_RUN_WORDS), n)
        runs: list[int] = []
        near: list[int] = []
        spelled: list[int] = []
        sentences: set[int] = set()
        for text in texts:
            toks = tokens(text)
            w = [t.word for t in toks]
            for i in range(len(w) - n + 1):
                window = tuple(w[i : i + n])
                runs.append(hash(window))
                near.extend(_masked(window))
            chars, _ = _letters(toks)
            spelled.extend(hash(chars[i : i + self.letters]) for i in range(len(chars) - self.letters + 1))
            for sentence in _SENTENCE_END.split(text):
                s = tuple(words(sentence))
                if self.min_sentence_words <= len(s) < n:
                    sentences.add(hash(s))
        self._runs = np.unique(np.asarray(runs, dtype=np.int64))
        self._near = np.unique(np.asarray(near, dtype=np.int64))
        self._letters = np.unique(np.asarray(spelled, dtype=np.int64))
        self._sentences = sentences

    @property
    def empty(self) -> bool:
        return not (self._runs.size or self._sentences or self._letters.size)

    def copies(self, text: str, given: str = "") -> list[Copy]:
        """Where ``text`` copies the protected texts, in order; a copy that ``given`` (e.g. the question the
        asker wrote) holds word for word (or letter for letter) is not counted: the asker supplied those words.
        (Not to one word: a question may hold a run with one word changed to draw out the original.)"""
        toks = tokens(text)
        w = [t.word for t in toks]
        given_toks = tokens(given)
        supplied, supplied_letters = [t.word for t in given_toks], _letters(given_toks)[0]
        found = [c for c in self._find(w) if not holds_run(w[c.first : c.last + 1], supplied)]
        found += self._spelled(toks, supplied_letters)
        if found or not w:
            return sorted(found, key=lambda c: (c.first, c.last))
        whole = Copy(0, len(w) - 1, "filler")
        for filler in _fillers(w):
            kept = [x for x in w if x != filler]
            if any(not holds_run(kept[c.first : c.last + 1], supplied) for c in self._find(kept)):
                return [whole]
        for decoded in variants(text):
            decoded_toks = tokens(decoded)
            dw = [t.word for t in decoded_toks]
            hidden = [c for c in self._find(dw) if not holds_run(dw[c.first : c.last + 1], supplied)]
            if hidden or self._spelled(decoded_toks, supplied_letters):
                return [Copy(0, len(w) - 1, "encoded")]
        return []

    def first_copy(self, text: str) -> str | None:
        """The words of the first copy in ``text``, or None."""
        w = words(text)
        for c in self.copies(text):
            return " ".join(w[c.first : c.last + 1])
        return None

    def _find(self, w: Sequence[str]) -> list[Copy]:
        n = self.n
        found: list[Copy] = []
        if len(w) >= n:
            windows = [tuple(w[i : i + n]) for i in range(len(w) - n + 1)]
            exact = _member(self._runs, [hash(x) for x in windows])
            masked = _member(self._near, [h for x in windows for h in _masked(x)]).reshape(len(windows), n - 2)
            for i, window_is_run in enumerate(exact):
                if window_is_run:
                    found.append(Copy(i, i + n - 1, "run"))
                elif masked[i].any():
                    found.append(Copy(i, i + n - 1, "near_run"))
        for length in range(self.min_sentence_words, n) if self._sentences else ():
            for i in range(len(w) - length + 1):
                if hash(tuple(w[i : i + length])) in self._sentences:
                    found.append(Copy(i, i + length - 1, "sentence"))
        return found

    def _spelled(self, toks: Sequence[Word], supplied: str) -> list[Copy]:
        """Runs of ``self.letters`` protected letters in a row, whatever stands between them (not those the
        asker's own text holds)."""
        text, owner = _letters(toks)
        size = self.letters
        if len(text) < size or not self._letters.size:
            return []
        windows = [text[i : i + size] for i in range(len(text) - size + 1)]
        hits = _member(self._letters, [hash(x) for x in windows])
        return [
            Copy(owner[i], owner[i + size - 1], "letters")
            for i, hit in enumerate(hits)
            if hit and windows[i] not in supplied
        ]


def _fillers(w: Sequence[str]) -> list[str]:
    """Words repeated often enough to be a filler put between the words of a copy."""
    counts = Counter(w)
    return [x for x, k in counts.items() if k >= FILLER_MIN and k * 4 >= len(w)]


def holds_run(run: Sequence[str], text: Sequence[str]) -> bool:
    """Whether ``text`` holds ``run`` word for word."""
    n = len(run)
    return any(list(text[i : i + n]) == list(run) for i in range(len(text) - n + 1))


def _masked(window: tuple[str, ...]) -> list[int]:
    """The hashes of ``window`` with each one of its inner words left out (for runs with one word swapped; a
    different first or last word is a shorter run, not a near-copy)."""
    return [hash((j, window[:j], window[j + 1 :])) for j in range(1, len(window) - 1)]


def _member(table: np.ndarray, hashes: Sequence[int]) -> np.ndarray:
    if not table.size or not hashes:
        return np.zeros(len(hashes), dtype=bool)
    query = np.asarray(hashes, dtype=np.int64)
    at = np.minimum(np.searchsorted(table, query), table.size - 1)
    return np.asarray(table[at] == query)


def redact(text: str, found: Sequence[Copy], mark: str = "[…]") -> tuple[str, int]:
    """``text`` with the words of every copy in ``found`` replaced by ``mark`` (overlapping copies merged), and
    how many words were removed."""
    if not found:
        return text, 0
    toks = tokens(text)
    spans: list[list[int]] = []
    for c in sorted(found, key=lambda c: c.first):
        if spans and c.first <= spans[-1][1] + 1:
            spans[-1][1] = max(spans[-1][1], c.last)
        else:
            spans.append([c.first, c.last])
    out, at, removed = [], 0, 0
    for first, last in spans:
        out += [text[at : toks[first].start], mark]
        at = toks[last].end
        removed += last - first + 1
    out.append(text[at:])
    return "".join(out), removed
