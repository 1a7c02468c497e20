"""Coverage and calibration of the answers shown: does an answer's confidence say how often it is right?

Pure functions over scored answer rows (``correct`` judged strictly by simulation.scoring; ``confidence`` the
probability the answer carried, 0 where it gave no verdict). "can't tell" and declines are never counted right,
so abstaining cannot raise accuracy; coverage, the share of asks that got an answer, is reported beside it:

- per shape: coverage and accuracy on the asks answered, beside accuracy on all asks;
- a reliability table: per word (sure, likely, can't tell) and per tenth of probability, the asks and their
  accuracy;
- the expected calibration error (ECE): the asks-weighted mean gap between each tenth's mean confidence and its
  accuracy;
- risk–coverage: the accuracy of the most confident 50% and 80% of asks.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from shared.core.sureness import Sureness, sureness_of
from simulation.metrics import declines
from simulation.report_reading import shape_of_row

Row = Mapping[str, Any]
BINS = 10
COVERAGES = (0.5, 0.8)


def answered(row: Row) -> bool:
    """The ask got an answer: a short answer that is not a decline (an unanswerable question's decline counts)."""
    short = str(row.get("short") or "").strip()
    if row.get("kind") == "unanswerable":
        return bool(row.get("correct"))
    return bool(short) and not declines(short)


def confidence(row: Row) -> float:
    value = row.get("confidence")
    return min(max(float(value), 0.0), 1.0) if isinstance(value, int | float) else 0.0


def coverage_by_shape(rows: Sequence[Row]) -> dict[str, dict[str, Any]]:
    """shape -> asks, coverage, accuracy on all asks and on the answered ones."""
    groups: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        groups[shape_of_row(row)].append(row)
    return {shape: coverage_cell(group) for shape, group in sorted(groups.items())}


def coverage_cell(rows: Sequence[Row]) -> dict[str, Any]:
    given = [r for r in rows if answered(r)]
    right = sum(1 for r in rows if r["correct"])
    return {
        "n": len(rows),
        "coverage": round(len(given) / len(rows), 4) if rows else None,
        "accuracy": round(right / len(rows), 4) if rows else None,
        "answered_accuracy": round(sum(1 for r in given if r["correct"]) / len(given), 4) if given else None,
    }


def reliability(rows: Sequence[Row]) -> dict[str, Any]:
    """Per word and per tenth of confidence: asks, mean confidence and accuracy; ECE; risk–coverage."""
    words: dict[str, list[Row]] = {w.value: [] for w in Sureness}
    bins: dict[int, list[Row]] = defaultdict(list)
    for row in rows:
        p = confidence(row)
        words[sureness_of(p).value].append(row)
        bins[min(int(p * BINS), BINS - 1)].append(row)
    by_word = {word: _bucket(group) for word, group in words.items()}
    by_bin = {f"{b / BINS:.1f}-{(b + 1) / BINS:.1f}": _bucket(bins[b]) for b in sorted(bins)}
    total = len(rows)
    ece = sum(len(g) / total * abs(_accuracy(g) - _mean_confidence(g)) for g in bins.values()) if total else None
    ranked = sorted(rows, key=confidence, reverse=True)
    at = {f"{c:.0%}": _accuracy(ranked[: max(round(c * total), 1)]) if total else None for c in COVERAGES}
    sure = words[Sureness.SURE.value]
    return {
        "n": total,
        "by_word": by_word,
        "by_tenth": by_bin,
        "ece": round(ece, 4) if ece is not None else None,
        "accuracy_at_coverage": {k: round(v, 4) if v is not None else None for k, v in at.items()},
        "sure_share": round(len(sure) / total, 4) if total else None,
    }


def _bucket(rows: Sequence[Row]) -> dict[str, Any]:
    return {
        "n": len(rows),
        "confidence": round(_mean_confidence(rows), 4) if rows else None,
        "accuracy": round(_accuracy(rows), 4) if rows else None,
    }


def _accuracy(rows: Sequence[Row]) -> float:
    return sum(1 for r in rows if r["correct"]) / len(rows) if rows else 0.0


def _mean_confidence(rows: Sequence[Row]) -> float:
    return sum(confidence(r) for r in rows) / len(rows) if rows else 0.0
