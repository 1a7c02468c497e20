"""The answer-quality table: strict accuracy beside the shape-aware baseline of the same asks, per half."""

from __future__ import annotations

from benchmarks.answer_quality import halves, summarise, table
from simulation.halves import Half, half_of


def _row(qid: str, gold: str, short: str, kind: str = "within", reader: str = "extractive") -> dict[str, object]:
    return {
        "qid": qid,
        "question": "Which company made it?",
        "gold": gold,
        "short": short,
        "answer": f"{short}. [1: {gold}]",
        "shape": "entity",
        "kind": kind,
        "mode": "dgrag",
        "correct": short == gold,
        "evidence_recall": 0.5,
        "escalated": kind == "out",
        "reader": reader,
    }


def test_strict_accuracy_sits_beside_the_baseline_of_the_same_asks() -> None:
    rows = [_row("a", "Apple", "Apple"), _row("b", "Apple", "Amazon"), _row("c", "Amazon", "Amazon", reader="vote")]
    cell = summarise(rows)
    assert (cell.n, cell.accuracy, cell.baseline) == (3, 2 / 3, 2 / 3)
    assert cell.evidence_recall == 0.5 and cell.readers == "extractive:2 vote:1"


def test_the_table_groups_by_mode_kind_and_shape_and_leaves_unanswerable_asks_out() -> None:
    rows = [_row("a", "Apple", "Apple"), _row("b", "Apple", "Apple", "out"), _row("c", "-", "-", "x")]
    cells = table(rows)
    assert set(cells) == {("dgrag", k, s) for k in ("within", "out") for s in ("all", "entity")}
    assert cells[("dgrag", "out", "all")].escalated == 1.0


def test_the_report_half_comes_first_and_holds_only_its_questions() -> None:
    rows = [_row(f"q{i}", "Apple", "Apple") for i in range(20)]
    (label, report), (_, fit), (_, both) = halves(rows)
    assert label == "report half" and all(half_of(str(r["qid"])) == Half.REPORT for r in report)
    assert len(report) + len(fit) == len(both) == 20 and report and fit
