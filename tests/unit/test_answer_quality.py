"""The answer-quality table: accuracy of the shown and the short answer beside the majority of the same asks."""

from __future__ import annotations

from benchmarks.answer_quality import summarise, table


def _row(qid: str, gold: str, answer_correct: bool, short_correct: bool, kind: str = "within") -> dict[str, object]:
    return {
        "qid": qid,
        "question": "Which company made it?",
        "gold": gold,
        "kind": kind,
        "mode": "dgrag",
        "correct": answer_correct,
        "correct_short": short_correct,
        "evidence_recall": 0.5,
        "escalated": kind == "out",
    }


def test_the_short_answer_is_judged_apart_and_the_majority_is_of_the_same_asks() -> None:
    rows = [_row("a", "Apple", True, False), _row("b", "Apple", True, True), _row("c", "Amazon", False, False)]
    cell = summarise(rows)
    assert (cell.n, cell.accuracy, cell.short_accuracy) == (3, 2 / 3, 1 / 3)
    assert cell.majority_answer == "apple" and cell.majority == 2 / 3 and cell.evidence_recall == 0.5


def test_the_table_groups_by_mode_kind_and_shape_and_leaves_unanswerable_asks_out() -> None:
    rows = [_row("a", "Apple", True, True), _row("b", "Apple", True, True, "out"), _row("c", "-", True, True, "x")]
    cells = table(rows)
    assert set(cells) == {("dgrag", k, s) for k in ("within", "out") for s in ("all", "entity")}
    assert cells[("dgrag", "out", "all")].escalated == 1.0
