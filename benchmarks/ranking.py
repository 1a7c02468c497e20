"""How well a score ranks one group of cases above another (the benchmarks' AUC)."""

from __future__ import annotations

from collections.abc import Sequence


def auc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """The probability that a positive case scores above a negative one (ties count half; 0.0 without pairs)."""
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / max(len(positives) * len(negatives), 1)
