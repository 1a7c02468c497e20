"""Metric definitions and the 'Asked at' rule."""

from __future__ import annotations

from simulation.bundle import Question, asked_at
from simulation.metrics import evidence_recall, percentile


def test_evidence_recall_and_percentile() -> None:
    assert evidence_recall(["a", "b"], ["b", "c"]) == 0.5
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5


def test_asked_at_is_deterministic_and_complete() -> None:
    qs = [
        Question("q1", "?", "Yes", "t", ("a",), ("d1",)),
        Question("q2", "?", "No", "t", ("b", "c"), ("d2", "d3")),
        Question("q3", "?", "Insufficient information.", "t", (), ()),
    ]
    first = asked_at(qs, ["a", "b", "c", "d"])
    assert first == asked_at(qs, ["a", "b", "c", "d"])
    kinds = [(a.question.qid, a.kind) for a in first]
    assert kinds == [("q1", "within"), ("q1", "out"), ("q2", "within"), ("q2", "out"), ("q3", "unanswerable")]
    for a in first:
        if a.kind == "within":
            assert a.edge in a.question.home_edges
        if a.kind == "out":
            assert a.edge not in a.question.home_edges
