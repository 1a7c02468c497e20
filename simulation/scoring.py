"""Strict scoring of the answer a person reads, and the baseline that knows each question's shape.

The rules (docs/benchmarks.md, "How we measure"):

- Only the **short answer** is judged. The supporting quote, an extract and the cited ids earn nothing: a quote
  can hold the gold by chance and an id (a timestamp, a document name) can spell it.
- **Yes/no** golds: the short answer's first word is the gold's verdict and the other verdict is not in it
  ("Yes or no", "Yes. No." are wrong).
- **Unanswerable** golds ("Insufficient information"): the answer shown declines in its first sentence.
- **Closed** golds (at most :data:`CLOSED_WORDS` content words: a name, a date, a number, a short phrase): the
  gold's content words appear in the short answer as consecutive content words (articles and other function words
  aside: "the cozy café downtown" is answered by "cozy café downtown"), the short answer has at most
  ``max(MIN_SHORT_WORDS, 2 * gold words)`` words, and it is not a list of candidates (two or more parts
  separated by ``,`` ``;`` ``/`` "or" "and" that each carry a name or number, unless the gold itself is such a
  list; the comma of a number's digit groups separates nothing: "100,000" answers "100000"). Spacing inside
  names does not count: "Li Hua" answers "LiHua".
- **Open** golds (longer): the short answer, within the same length cap, holds at least :data:`OPEN_COVERAGE` of
  the gold's content words. A whole chat line or paragraph is never a short answer, whatever it contains.

The shape-aware baseline answers each group of asks the way a guesser who knows the shape would: yes/no asks the
more frequent verdict, unanswerable asks a decline, every other shape (entity, date, number, choice, open) its
most frequent gold. It is computed over the same asks as the accuracy beside it.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from shared.reading.plan import shape_of
from simulation.metrics import FUNCTION_WORDS, YES_NO, declines, first_word, is_unanswerable_gold, normalise_answer

CLOSED_WORDS = 3
"""Golds with at most this many content words must appear whole; longer ones are open."""
OPEN_COVERAGE = 2 / 3
"""Share of an open gold's content words a short answer must hold."""
MIN_SHORT_WORDS = 8
"""A short answer may always be this long; longer only up to twice the gold's words."""
YES_NO_SHAPE = "yes_no"
UNANSWERABLE_SHAPE = "unanswerable"

_LIST_SEPARATOR = re.compile(r"\s*(?:(?<!\d),|,(?!\d{3}\b)|[;/]|\bor\b|\band\b|&)\s*", re.IGNORECASE)
"""What separates candidates in a list: not the comma of a number's digit groups ("100,000" is one number)."""
_NAME_OR_NUMBER = re.compile(r"\b(?:[A-Z][\w'’.-]*|\d[\d.,:%-]*)")


def content_words(text: str) -> list[str]:
    return [w for w in normalise_answer(text).split() if w not in FUNCTION_WORDS]


def strictly_correct(short: str, gold: str, answer: str = "") -> bool:
    """Whether the short answer ``short`` answers ``gold`` under the rules above; ``answer`` (the whole answer
    shown) counts only for a decline, which is the whole answer when there is nothing to say."""
    if is_unanswerable_gold(gold):
        return declines(short) or (not short.strip() and declines(answer))
    g = normalise_answer(gold)
    if g in YES_NO:
        other = "no" if g == "yes" else "yes"
        return first_word(short) == g and other not in normalise_answer(short).split()
    s = normalise_answer(short)
    if not s or len(s.split()) > max(MIN_SHORT_WORDS, 2 * len(g.split())):
        return False
    wanted = content_words(gold) or g.split()
    if len(wanted) <= CLOSED_WORDS:
        said = content_words(short) if content_words(gold) else s.split()
        return _contains_run(said, wanted) and not lists_candidates(short, gold)
    have = Counter(s.split())
    covered = sum(min(n, have[w]) for w, n in Counter(wanted).items())
    return covered >= OPEN_COVERAGE * len(wanted)


def _contains_run(words: list[str], run: list[str]) -> bool:
    """Whether ``run`` occurs in ``words`` as consecutive words, spacing aside: "Li Hua" answers "LiHua" and
    "LiHua" answers "Li Hua" (the letters in the same order, the words joined differently)."""
    joined = "".join(run)
    for i in range(len(words)):
        spelled = ""
        for word in words[i:]:
            spelled += word
            if spelled == joined:
                return True
            if not joined.startswith(spelled):
                break
    return False


def lists_candidates(short: str, gold: str) -> bool:
    """Whether ``short`` names two or more candidates (parts that each carry a name or a number) where the gold
    names one."""
    if len(_LIST_SEPARATOR.split(gold.strip())) > 1:
        return False
    parts = [p for p in _LIST_SEPARATOR.split(short.strip()) if _NAME_OR_NUMBER.search(p)]
    return len(parts) > 1


def shape_of_ask(question: str, gold: str) -> str:
    """The shape a guesser knows: yes/no and unanswerable by the gold's kind, the others by the question."""
    if is_unanswerable_gold(gold):
        return UNANSWERABLE_SHAPE
    if normalise_answer(gold) in YES_NO:
        return YES_NO_SHAPE
    shape = shape_of(question).shape.value
    return "entity" if shape == YES_NO_SHAPE else shape  # a yes/no-looking question whose gold is a name


@dataclass(frozen=True)
class Baseline:
    """The shape-aware baseline of a group of asks: its accuracy and, per shape, the guess and its accuracy."""

    accuracy: float
    guesses: dict[str, tuple[str, float, int]]
    """shape -> (the guess, its accuracy on that shape's asks, how many asks)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "accuracy": round(self.accuracy, 4),
            "by_shape": {s: {"guess": g, "accuracy": round(a, 4), "n": n} for s, (g, a, n) in self.guesses.items()},
        }


def shape_baseline(rows: Sequence[Mapping[str, Any]]) -> Baseline:
    """The shape-aware baseline of ``rows`` (each with ``question`` and ``gold``)."""
    golds: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        golds[shape_of_ask(str(row["question"]), str(row["gold"]))].append(str(row["gold"]))
    guesses = {}
    right = 0
    for shape, values in sorted(golds.items()):
        if shape == UNANSWERABLE_SHAPE:
            guess, count = "insufficient information", len(values)
        else:
            guess, count = Counter(normalise_answer(g) for g in values).most_common(1)[0]
        guesses[shape] = (guess, count / len(values), len(values))
        right += count
    return Baseline(right / len(rows) if rows else 0.0, guesses)


def rescored(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` with ``correct`` judged again strictly from their ``short`` answer (rows of an older version are
    judged like the rest) and ``shape`` set."""
    return [
        {
            **row,
            "correct": strictly_correct(str(row.get("short") or ""), str(row["gold"]), str(row.get("answer") or "")),
            "shape": shape_of_ask(str(row["question"]), str(row["gold"])),
        }
        for row in rows
    ]
