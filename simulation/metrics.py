"""Metric definitions shared by every report (docs/simulation.md, "Metrics")."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

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
"""Words a gold answer's content does not count (any answer has them)."""


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
