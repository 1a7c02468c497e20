"""benchmarks/fit_gate_check.py: the decision replayed on recorded gate signals and probe scores (as
edge_node.query.escalation.decide makes it), and the point it chooses."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from benchmarks.fit_gate import _score
from benchmarks.fit_gate_check import GATE_WEIGHTS, Bundle, Point, choose, escalates, load_bundle, rates
from edge_node.query.escalation import Action, Check, Signals, Situation, decide
from shared.config import GateConfig
from shared.core.knowledge import ProbeScores
from simulation.cloud_parts import ProbeRouting


def _probes(**scores: tuple[float, float, float]) -> dict[str, ProbeScores]:
    """Per edge: (evidence, term coverage, lexical coverage)."""
    return {e: ProbeScores(e, ev, term_coverage=t, lexical=x) for e, (ev, t, x) in scores.items()}


# gate score = 0.8 × evidence + 0.1 × jaccard + 0.1 × claims (cosine weighs 0 by default); gate.threshold 0.343
PROBES = {"q1": _probes(a=(0.9, 0, 0), b=(0.3, 0, 0)), "q2": _probes(a=(0.4, 0, 0), b=(0.8, 0, 0))}


def _row(qid: str, asked_at: str, kind: str, evidence: float, jaccard: float = 1.0) -> dict[str, Any]:
    signals = {"evidence": evidence, "jaccard": jaccard, "cosine": 1.0, "claims": 1.0, "refusal_share": 0.0}
    return {"qid": qid, "asked_at": asked_at, "kind": kind, "signals": signals}


ROWS = [
    _row("q1", "a", "within", 0.9),  # score 0.92: trusted; nobody beats 0.9
    _row("q1", "b", "out", 0.3),  # score 0.44: trusted by the gate; a (0.9) beats 0.3 by 0.6
    _row("q2", "b", "within", 0.8),  # score 0.84: trusted; a (0.4) does not beat 0.8
    _row("q2", "a", "out", 0.2, jaccard=0.0),  # score 0.26: doubtful at check_threshold 0.2, untrusted at 0.3
]


def test_trusted_answers_escalate_only_where_another_edge_is_clearly_stronger() -> None:
    assert not escalates(ROWS[1], PROBES, Point(0.2, None)), "the gate alone keeps it"
    assert escalates(ROWS[1], PROBES, Point(0.2, 0.5))
    assert not escalates(ROWS[1], PROBES, Point(0.2, 0.7)), "0.9 does not beat 0.3 by more than 0.7"
    assert escalates(ROWS[3], PROBES, Point(0.2, None)), "below gate.threshold, no check: escalated"


def test_doubtful_answers_stay_only_when_this_edge_leads_by_the_stay_margin() -> None:
    assert escalates(ROWS[3], PROBES, Point(0.2, 0.1, 0.0)), "b (0.8) leads a (0.4)"
    lone = {"q2": _probes(a=(0.4, 0, 0), b=(0.35, 0, 0))}
    assert not escalates(ROWS[3], lone, Point(0.2, 0.1, 0.0)), "a leads b by 0.05"
    assert escalates(ROWS[3], lone, Point(0.2, 0.1, 0.1)), "but not by 0.1"
    assert escalates(ROWS[3], lone, Point(0.3, 0.1, 0.0)), "under check_threshold: escalated without a check"


def test_the_replay_agrees_with_the_edge_decision() -> None:
    """Every combination of gate score band, refusals and probe lead: the replay escalates exactly when decide()
    (given the check's answer the cloud would give) ends in escalation."""
    gate = GateConfig(check_threshold=0.2, evidence_margin=0.1, stay_margin=0.05)
    point = Point(gate.check_threshold, gate.evidence_margin, gate.stay_margin)
    for evidence, jaccard, refusals, other in itertools.product(
        (0.1, 0.3, 0.5, 0.9), (0.0, 1.0), (0.0, 0.5, 0.75), (0.0, 0.3, 0.45, 0.6, 1.0)
    ):
        row = _row("q", "a", "within", evidence, jaccard)
        row["signals"]["refusal_share"] = refusals
        probes = {"q": _probes(a=(evidence, 0, 0), b=(other, 0, 0))}
        signals = Signals(_score(row["signals"], GATE_WEIGHTS), refusals)
        outcome = decide(signals, gate, Situation(cloud=True))
        if outcome.action == Action.CHECK:
            margin = outcome.check_margin or 0.0
            check = Check.STRONGER_ELSEWHERE if other > evidence + margin else Check.NOT_STRONGER
            outcome = outcome.after(check)
        expected = outcome.action == Action.ESCALATE
        assert escalates(row, probes, point) == expected, (evidence, jaccard, refusals, other)


def test_rates_and_the_chosen_point(tmp_path: Path) -> None:
    bundle = Bundle("t", ROWS, PROBES)
    gate_only = rates(bundle, ROWS, Point(0.2, None))
    assert (gate_only.within, gate_only.out, gate_only.checks) == (0.0, 0.5, 0.0)
    checked = rates(bundle, ROWS, Point(0.2, 0.1))
    assert (checked.within, checked.out, checked.checks) == (0.0, 1.0, 1.0), "every ask paid for a check"
    grid = [Point(0.2, None), Point(0.2, 0.1), Point(0.2, 0.7)]
    assert choose([bundle], [ROWS], grid, max_within=0.0) == Point(0.2, 0.1)
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
    row = _row("q", "a", "within", 0.5)  # score 0.65: trusted
    point = Point(0.2, 0.05)
    assert escalates(row, probes, point), "evidence alone: b (0.6) beats a (0.5) by 0.1"
    terms = ProbeRouting(0, 0.0, 1, 1.0, terms_weight=0.5)
    assert not escalates(row, probes, point, terms), "with terms a scores 0.95, b 0.65"
    both = ProbeRouting(0, 0.0, 1, 1.0, terms_weight=0.5, lexical_weight=1.0)
    assert escalates(row, probes, point, both), "with lexical coverage too: a 1.15, b 1.55"


def test_a_split_refusal_vote_escalates_alone_only_without_the_check() -> None:
    row = {**ROWS[0], "signals": {**ROWS[0]["signals"], "refusal_share": 0.5}}  # a's evidence 0.9: nobody beats it
    assert escalates(row, PROBES, Point(0.2, None)), "the gate alone: 2 of 4 refusals escalate"
    assert not escalates(row, PROBES, Point(0.2, 0.1)), "doubtful (check_refusal_share 0.75) and a leads"
    assert escalates(row, PROBES, Point(0.2, 0.1), check_refusals=0.5)
    assert escalates({**row, "signals": {**row["signals"], "refusal_share": 0.75}}, PROBES, Point(0.2, 0.1))
