"""report.md's reading sections: strict accuracy per question shape beside its baseline, the readers, and the
fit and report halves (data from simulation.report_reading)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shared.core.sureness import LIKELY_AT, SURE_AT
from simulation.markdown_table import DASH, pct, table

SHAPE_KINDS = ("within", "out")


def cell(data: Mapping[str, Any] | None) -> str:
    """``accuracy vs baseline (n)`` of one accuracy cell."""
    if not data:
        return DASH
    return f"{pct(data.get('accuracy'))} vs {pct(data.get('baseline'))} (n={data.get('n')})"


def shapes_section(modes: Mapping[str, Mapping[str, Any]]) -> str:
    """Per mode and kind of ask: each shape's strict accuracy vs its baseline and evidence recall; readers."""
    rows = []
    for mode, data in modes.items():
        reading = data.get("reading") or {}
        for kind in SHAPE_KINDS:
            group = reading.get(kind) or {}
            for shape, value in (group.get("by_shape") or {}).items():
                rows.append([mode, kind, shape, cell(value), pct(value.get("evidence_recall"))])
            if readers := group.get("readers"):
                shares = ", ".join(f"{name} {share:.0%}" for name, share in readers.items())
                rows.append([mode, kind, "readers", shares, ""])
    if not rows:
        return ""
    return (
        "### By question shape\n\n"
        + table(["mode", "asked", "shape", "strict accuracy vs shape baseline", "evidence recall"], rows)
        + "\n\nThe baseline of a shape is always giving that shape's most frequent gold (yes/no: the more "
        "frequent verdict; unanswerable: a decline). Evidence recall beside it tells retrieval losses from "
        "reading losses. 'readers': which reader made the answers shown (cloud: the cloud's answer)."
    )


def halves_section(halves: Mapping[str, Mapping[str, Any]] | None) -> str:
    """Strict accuracy vs baseline per mode on the fit half and on the report half of the questions."""
    if not halves:
        return ""
    rows = []
    for half, modes in halves.items():
        for mode, groups in modes.items():
            rows.append([half, mode, *(cell(groups.get(g)) for g in ("within", "out", "unanswerable", "all"))])
    return (
        "### Fit half and report half\n\n"
        + table(["half", "mode", "within", "out", "unanswerable", "all"], rows)
        + "\n\nQuestions are split once by a hash of their id (simulation/halves.py). Defaults are fitted on the "
        "fit half only; published figures come from the report half."
    )


def calibration_section(modes: Mapping[str, Mapping[str, Any]]) -> str:
    """Per mode: coverage and accuracy on the answered asks by shape, and how well the confidence is calibrated."""
    shapes, words = [], []
    for mode, data in modes.items():
        for kind, by_shape in (data.get("coverage_by_shape") or {}).items():
            for shape, c in by_shape.items():
                shapes.append(
                    [
                        mode,
                        kind,
                        shape,
                        str(c["n"]),
                        pct(c["coverage"]),
                        pct(c["accuracy"]),
                        pct(c["answered_accuracy"]),
                    ]
                )
        cal = data.get("calibration") or {}
        for word, b in (cal.get("by_word") or {}).items():
            words.append([mode, word, str(b["n"]), pct(b["confidence"]), pct(b["accuracy"])])
        if cal.get("n"):
            at = cal.get("accuracy_at_coverage") or {}
            summary = (
                f"ECE {cal['ece']:.3f}; accuracy at 50% / 80% coverage {pct(at.get('50%'))} / {pct(at.get('80%'))}"
            )
            words.append([mode, "all", str(cal["n"]), "", summary])
    if not shapes:
        return ""
    return (
        "### Coverage and confidence\n\n"
        + table(["mode", "asked", "shape", "asks", "coverage", "accuracy", "accuracy answered"], shapes)
        + "\n\n"
        + table(["mode", "confidence", "asks", "mean confidence", "accuracy"], words)
        + '\n\nCoverage is the share of asks that got an answer; "can\'t tell" and declines are never right, so '
        "abstaining cannot raise accuracy. Each answer carries a probability and a word "
        f"(sure from {SURE_AT:.0%}, likely from {LIKELY_AT:.0%}, else can't tell). ECE is the asks-weighted gap "
        "between confidence and accuracy over tenths of "
        "confidence; answerable asks only."
    )
