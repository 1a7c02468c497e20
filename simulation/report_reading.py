"""What a person reads, per mode: strict accuracy beside the shape-aware baseline, per question shape, the share
of answers each reader made, and both halves of the questions (fit and report, simulation.halves).

Pure functions over answer rows whose ``correct`` was judged by simulation.scoring (report_files rescored them).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from simulation.halves import Half, half_of
from simulation.scoring import shape_baseline, shape_of_ask

Row = Mapping[str, Any]
KINDS = ("within", "out", "unanswerable")
GROUPS = (*KINDS, "all")


def accuracy_cell(rows: Sequence[Row]) -> dict[str, Any] | None:
    """Strict accuracy of ``rows`` beside their shape-aware baseline (None without rows)."""
    if not rows:
        return None
    right = sum(1 for r in rows if r["correct"])
    return {
        "n": len(rows),
        "accuracy": right / len(rows),
        "baseline": shape_baseline(rows).accuracy,
    }


def shape_of_row(row: Row) -> str:
    return str(row.get("shape") or shape_of_ask(str(row["question"]), str(row["gold"])))


def by_shape(rows: Sequence[Row]) -> dict[str, Any]:
    """shape -> accuracy cell, with the mean evidence recall of that shape's answerable asks."""
    groups: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        groups[shape_of_row(row)].append(row)
    out = {}
    for shape, group in sorted(groups.items()):
        recalls = [float(r["evidence_recall"]) for r in group if r.get("evidence_recall") is not None]
        out[shape] = {
            **(accuracy_cell(group) or {}),
            "evidence_recall": round(sum(recalls) / len(recalls), 4) if recalls else None,
        }
    return out


def readers(rows: Sequence[Row]) -> dict[str, float]:
    """Share of the answers shown that each reader made (vote, extractive, generated, declined, cloud, '' when
    not recorded)."""
    counts = Counter(str(r.get("reader") or "unrecorded") for r in rows)
    return {name: round(n / len(rows), 4) for name, n in sorted(counts.items())} if rows else {}


def reading_report(rows: Sequence[Row]) -> dict[str, Any]:
    """One mode's reading: per kind of ask (and all), accuracy beside baseline, per shape, and readers."""
    out = {}
    for group in GROUPS:
        chosen = of_group(rows, group)
        out[group] = {"cell": accuracy_cell(chosen), "by_shape": by_shape(chosen), "readers": readers(chosen)}
    return out


def halves_report(by_mode: Mapping[str, Sequence[Row]]) -> dict[str, Any]:
    """half name -> mode -> kind -> accuracy cell: the fit half (defaults may have been fitted on it) and the
    report half (the one published figures come from)."""
    out: dict[str, Any] = {}
    for half in Half:
        per_mode = {}
        for mode, mode_rows in by_mode.items():
            chosen = [r for r in mode_rows if half_of(str(r["qid"])) == half]
            per_mode[mode] = {group: accuracy_cell(of_group(chosen, group)) for group in GROUPS}
        out[half.name.lower()] = per_mode
    return out


def of_group(rows: Sequence[Row], group: str) -> list[Row]:
    return list(rows) if group == "all" else [r for r in rows if r["kind"] == group]
