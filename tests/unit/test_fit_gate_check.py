"""benchmarks/fit_gate_check.py: the gate and the evidence check replayed together, and the point it chooses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.fit_gate_check import Bundle, choose, escalates, load_bundle, rates
from cloud_server.api import ProbeRouting
from shared.knowledge import ProbeScores


def _probes(**scores: tuple[float, float, float]) -> dict[str, ProbeScores]:
    """Per edge: (evidence, term coverage, lexical coverage)."""
    return {e: ProbeScores(e, ev, term_coverage=t, lexical=x) for e, (ev, t, x) in scores.items()}


# gate score = 0.7 × evidence + 0.3 × jaccard (cosine and claims weigh 0 by default)
PROBES = {"q1": _probes(a=(0.9, 0, 0), b=(0.3, 0, 0)), "q2": _probes(a=(0.4, 0, 0), b=(0.8, 0, 0))}


def _row(qid: str, asked_at: str, kind: str, evidence: float, jaccard: float = 1.0) -> dict[str, Any]:
    signals = {"evidence": evidence, "jaccard": jaccard, "cosine": 1.0, "claims": 1.0, "refusal_share": 0.0}
    return {"qid": qid, "asked_at": asked_at, "kind": kind, "signals": signals}


ROWS = [
    _row("q1", "a", "within", 0.9),  # score 0.93: local; nobody beats 0.9
    _row("q1", "b", "out", 0.3),  # score 0.51: local by the gate; a (0.9) beats 0.3 by 0.6
    _row("q2", "b", "within", 0.8),  # score 0.86: local; a (0.4) does not beat 0.8
    _row("q2", "a", "out", 0.4, jaccard=0.0),  # score 0.28: escalated by the gate at 0.3
]


def test_the_check_escalates_only_where_another_edge_is_clearly_stronger() -> None:
    assert not escalates(ROWS[1], PROBES, 0.3, None), "the gate alone keeps it"
    assert escalates(ROWS[1], PROBES, 0.3, 0.5)
    assert not escalates(ROWS[1], PROBES, 0.3, 0.7), "0.9 does not beat 0.3 by more than 0.7"
    assert escalates(ROWS[3], PROBES, 0.3, None)
    assert not escalates(ROWS[3], PROBES, 0.25, None)


def test_rates_and_the_chosen_point(tmp_path: Path) -> None:
    bundle = Bundle("t", ROWS, PROBES)
    gate_only = rates(bundle, ROWS, 0.3, None)
    assert (gate_only.within, gate_only.out, gate_only.checks) == (0.0, 0.5, 0.0)
    checked = rates(bundle, ROWS, 0.3, 0.1)
    assert (checked.within, checked.out, checked.checks) == (0.0, 1.0, 0.75)  # three asks the gate kept paid
    grid = [(0.3, None), (0.3, 0.1), (0.95, None)]
    assert choose([bundle], [ROWS], grid, max_within=0.0) == (0.3, 0.1), "0.95 escalates within-domain asks"
    path = tmp_path / "probes.json"
    parts = {"a": [1, 0.9, 0.0], "b": [1, 0.3, 0.0, 0.0]}  # files from before the lexical coverage have 3 parts
    case = {"qid": "q1", "home": ["a"], "probes": {"a": 0.9, "b": 0.3}, "parts": parts}
    path.write_text(json.dumps({"bench": "t", "cases": [case]}))
    rows = tmp_path / "answers.jsonl"
    rows.write_text(json.dumps({**ROWS[0], "mode": "local", "gate": ROWS[0]["signals"]}) + "\n")
    loaded = load_bundle(rows, path)
    assert loaded.probes == {"q1": PROBES["q1"]} and len(loaded.rows) == 1


def test_term_and_lexical_coverage_count_on_both_sides_of_the_check() -> None:
    probes = {"q": _probes(a=(0.5, 0.9, 0.2), b=(0.6, 0.1, 0.9))}
    row = _row("q", "a", "within", 0.5)  # score 0.65: the gate keeps it
    assert escalates(row, probes, 0.3, 0.05), "evidence alone: b (0.6) beats a (0.5) by 0.1"
    terms = ProbeRouting(0, 0.0, 1, 1.0, terms_weight=0.5)
    assert not escalates(row, probes, 0.3, 0.05, terms), "with terms a scores 0.95, b 0.65"
    both = ProbeRouting(0, 0.0, 1, 1.0, terms_weight=0.5, lexical_weight=1.0)
    assert escalates(row, probes, 0.3, 0.05, both), "with lexical coverage too: a 1.15, b 1.55"


def test_a_split_refusal_vote_escalates_alone_only_without_the_check() -> None:
    row = {**ROWS[0], "signals": {**ROWS[0]["signals"], "refusal_share": 0.5}}  # a's evidence 0.9: nobody beats it
    assert escalates(row, PROBES, 0.3, None), "the gate alone: 2 of 4 refusals escalate"
    assert not escalates(row, PROBES, 0.3, 0.1), "with the check (check_refusal_share 0.75) the check decides"
    assert escalates(row, PROBES, 0.3, 0.1, check_refusals=0.5)
    assert escalates({**row, "signals": {**row["signals"], "refusal_share": 0.75}}, PROBES, 0.3, 0.1)
