"""Metric definitions shared by every report (docs/simulation.md, "Metrics")."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from shared.core.text import sentences

_NON_WORD = re.compile(r"[^a-z0-9 ]+")
_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"[a-z0-9]+")
YES_NO = ("yes", "no")
UNANSWERABLE_PREFIX = "insufficient information"
DECLINING = re.compile(
    r"insufficient information|not enough information|no information|not (?:mentioned|provided|stated|specified|"
    r"given|available|included|clear)|does not (?:say|mention|provide|contain|specify|state)|doesn't (?:say|mention|"
    r"provide|contain)|cannot (?:be )?(?:determine|answer|find|tell)|can't (?:determine|answer|tell)|unable to|"
    r"i (?:do not|don't) know|unknown|no mention|not sure|unclear|no (?:context|data|details)",
    re.IGNORECASE,
)
"""The phrases by which an answer declines (the metric's own list: the gate has its own and may change)."""


def normalise_answer(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _NON_WORD.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def is_unanswerable_gold(gold: str) -> bool:
    return normalise_answer(gold).startswith(UNANSWERABLE_PREFIX)


def is_correct(answer: str, gold: str) -> bool:
    """The normalised gold contained in the normalised answer as whole words ('consistent' is not in
    'inconsistent'); yes/no golds judge the first word; unanswerable golds need an answer that declines."""
    if is_unanswerable_gold(gold):
        return declines(answer)
    g = normalise_answer(gold)
    if g in YES_NO:
        return first_word(answer) == g
    return bool(g) and f" {g} " in f" {normalise_answer(answer)} "


def with_verdicts(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` with ``correct`` judged again by :func:`is_correct` (rows kept from an earlier sitting or an
    older version are judged like the rest)."""
    return [{**row, "correct": is_correct(str(row.get("answer") or ""), str(row["gold"]))} for row in rows]


def first_word(answer: str) -> str:
    """The answer's first word, lower-cased, without surrounding whitespace and punctuation."""
    words = _WORD.findall(answer.strip().casefold()[:40])
    return words[0] if words else ""


def declines(answer: str) -> bool:
    """A non-empty answer whose first sentence says the information is missing ("... is unknown" later in an
    answer that first asserts something does not count, nor does an empty answer)."""
    first = next((s for s in sentences(answer) if s.strip()), "")
    return bool(first.strip()) and bool(DECLINING.search(first))


FUNCTION_WORDS = frozenset(
    "a an the of to in on at for by with from and or but as is are was were be been it its this that these those "
    "he she they him her his their them".split()
)
"""Words a gold answer's recall does not count (any answer has them)."""


def gold_word_recall(answer: str, gold: str) -> float | None:
    """Share of the gold answer's words (normalised, function words aside, with repeats) that the answer has.

    Partial credit where the gold is a phrase or sentence a short answer rarely contains whole. None for
    yes/no and unanswerable golds, which :func:`is_correct` judges exactly."""
    g = normalise_answer(gold)
    if is_unanswerable_gold(gold) or g in YES_NO:
        return None
    wanted = Counter(w for w in g.split() if w not in FUNCTION_WORDS)
    if not wanted:
        return None
    have = Counter(normalise_answer(answer).split())
    return sum(min(n, have[w]) for w, n in wanted.items()) / sum(wanted.values())


def majority_baseline(golds: Sequence[str]) -> tuple[str, float]:
    """The most common normalised gold answer and the accuracy of always answering it."""
    if not golds:
        return "", 0.0
    counts = Counter(normalise_answer(g) for g in golds)
    answer, count = counts.most_common(1)[0]
    return answer, count / len(golds)


def evidence_recall(gold_doc_ids: Sequence[str], context_doc_ids: Sequence[str]) -> float:
    """Share of gold evidence documents present in the context."""
    if not gold_doc_ids:
        return 1.0
    present = set(context_doc_ids)
    return sum(1 for d in gold_doc_ids if d in present) / len(gold_doc_ids)


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = (len(ordered) - 1) * q / 100
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)
