"""Coverage and calibration: abstaining never raises accuracy, and the confidence is scored against the truth."""

from __future__ import annotations

from typing import Any

from simulation.report_calibration import coverage_by_shape, coverage_cell, reliability


def _row(short: str, correct: bool, confidence: float, shape: str = "entity", kind: str = "within") -> dict[str, Any]:
    return {"short": short, "correct": correct, "confidence": confidence, "shape": shape, "kind": kind}


def test_cant_tell_counts_against_accuracy_and_coverage_says_how_often_one_answered() -> None:
    rows = [_row("Apple", True, 0.9), _row("", False, 0.0), _row("Google", False, 0.6), _row("", False, 0.0)]
    cell = coverage_cell(rows)
    assert cell == {"n": 4, "coverage": 0.5, "accuracy": 0.25, "answered_accuracy": 0.5}
    declined = [_row("Insufficient information.", False, 0.0)]
    assert coverage_cell(declined)["coverage"] == 0.0, "a decline to an answerable question is no answer"
    shapes = coverage_by_shape([*rows, _row("Yes", True, 0.7, shape="yes_no")])
    assert set(shapes) == {"entity", "yes_no"} and shapes["yes_no"]["coverage"] == 1.0


def test_a_calibrated_confidence_has_no_gap_and_a_confident_wrong_one_does() -> None:
    honest = [_row("a", True, 0.9)] * 9 + [_row("b", False, 0.9)] + [_row("c", False, 0.1)] * 9 + [_row("d", True, 0.1)]
    table = reliability(honest)
    assert table["ece"] == 0.0 and table["by_word"]["sure"] == {"n": 10, "confidence": 0.9, "accuracy": 0.9}
    assert table["accuracy_at_coverage"]["50%"] == 0.9 and table["sure_share"] == 0.5
    overconfident = [_row("a", False, 0.95)] * 5 + [_row("b", True, 0.95)] * 5
    assert reliability(overconfident)["ece"] == 0.45
    assert reliability([])["ece"] is None


def test_the_reliability_plot_is_drawn_only_for_answers_that_carried_a_confidence(tmp_path) -> None:
    from simulation.plots import RELIABILITY_PNG, available_plots, write_plots

    def report(rows: list[dict[str, Any]]) -> dict[str, Any]:
        return {"modes": {"dgrag": {"accuracy": {}, "calibration": reliability(rows)}}}

    carried = report([_row("a", True, 0.9), _row("b", False, 0.3)])
    silent = report([_row("a", True, 0.0)])
    assert RELIABILITY_PNG in available_plots(carried) and RELIABILITY_PNG not in available_plots(silent)
    (written,) = [p for p in write_plots(carried, tmp_path) if p.name == RELIABILITY_PNG]
    assert written.read_bytes()[:4] == b"\x89PNG"
