"""benchmarks.lying_edge: the liar's share of routed asks and the honest edges' figures, from answer rows."""

from __future__ import annotations

from benchmarks.lying_edge import figures, table


def _row(asked_at: str, kind: str, asked: list[str], escalated: bool, correct: bool) -> dict[str, object]:
    row: dict[str, object] = {"mode": "dgrag", "asked_at": asked_at, "kind": kind, "edges_asked": asked}
    return row | {"escalated": escalated, "correct": correct}


def test_capture_counts_routed_asks_and_honest_figures_leave_the_liars_own_asks_out() -> None:
    rows = [
        _row("a", "within", [], False, True),
        _row("a", "out", ["liar", "b"], True, True),
        _row("b", "out", ["a"], True, False),
        _row("liar", "out", ["liar"], True, False),
    ]
    got = figures(rows, "liar")
    assert got["routed asks"] == 3 and got["captured"] == 2 / 3 and got["captured first"] == 2 / 3
    assert got["within: escalated"] == 0.0 and got["out: asks at honest edges"] == 2
    assert got["out: accuracy"] == 0.5
    assert "| captured | 66.7% | 66.7% | +0.0 points |" in table(got, got)
