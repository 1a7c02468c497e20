"""The gate fitting tool finds a separating operating point."""

from __future__ import annotations

import pytest

from benchmarks.fit_gate import fit


def _row(kind: str, evidence: float, cosine: float = 0.5) -> dict[str, object]:
    signals = {"evidence": evidence, "cosine": cosine, "jaccard": 0.5, "claims": 0.5, "refusal_share": 0.0}
    return {"kind": kind, "signals": signals}


def test_fit_separates_on_the_informative_signal() -> None:
    rows = [_row("within", 0.8 + i / 100) for i in range(10)] + [_row("out", 0.2 + i / 100) for i in range(10)]
    point = fit(rows, max_within=0.0)
    assert point.escalation_within == 0.0 and point.escalation_out == 1.0
    assert point.weights["evidence"] > 0


def test_fit_respects_the_within_bound_and_needs_both_kinds() -> None:
    rows = [_row("within", 0.5), _row("within", 0.1), _row("out", 0.3)]
    point = fit(rows, max_within=0.5)
    assert point.escalation_within <= 0.5
    with pytest.raises(ValueError):
        fit([_row("within", 0.5)], max_within=0.1)


def test_simulation_rows_give_their_local_rows_with_the_gates_signals() -> None:
    from benchmarks.fit_gate import gate_rows

    signals = {"evidence": 0.9, "cosine": 0.5, "jaccard": 0.4, "claims": 1.0, "refusal_share": 0.0}
    rows = [
        {"qid": "q1", "kind": "within", "mode": "local", "gate": signals},
        {"qid": "q1", "kind": "within", "mode": "dgrag", "gate": signals},
        {"qid": "q1", "kind": "within", "mode": "naive", "gate": None},
    ]
    out = gate_rows(rows)
    assert len(out) == 1 and out[0]["signals"] is signals
    plain = [{"qid": "q2", "kind": "out", "signals": signals}]
    assert gate_rows(plain) == plain


def test_rates_keep_out_of_domain_and_unanswerable_apart() -> None:
    from benchmarks.fit_gate import rates

    rows = [_row("within", 0.9), _row("out", 0.1), _row("out", 0.9), _row("unanswerable", 0.1)]
    point = fit(rows, max_within=0.0)
    shares = rates(rows, point)
    assert shares == {"within": 0.0, "out": 0.5, "unanswerable": 1.0}  # out alone, as docs/simulation.md defines it
    assert rates([_row("within", 0.9)], point)["out"] is None
