"""benchmarks/probe_routing.py's scoring: route hit/recall per setting and the evidence check's fire rates."""

from __future__ import annotations

from benchmarks.probe_routing import Case, evaluate, evidence_check
from cloud_server.routing.choice import ProbeRouting
from shared.core.knowledge import ProbeScores, SummaryMatch

MATCHES = [SummaryMatch("s1", "a", 0.9), SummaryMatch("s2", "b", 0.8), SummaryMatch("s3", "c", 0.7)]


def _case(home: str, **scores: float) -> Case:
    probes = {edge: ProbeScores(edge, score) for edge, score in scores.items()}
    return Case(f"q-{home}", frozenset({home}), {0.0: MATCHES}, probes)


def test_probes_fix_a_summary_miss_and_the_baseline_keeps_it() -> None:
    cases = [_case("b", a=0.2, b=0.9, c=0.1), _case("a", a=0.8, b=0.3, c=0.1)]
    baseline = evaluate(cases, 0.0, None)
    assert baseline == {"route_hit@1": 0.5, "route_recall": 0.5, "home_coverage": 0.5, "edges_asked": 1.0}
    probed = evaluate(cases, 0.0, ProbeRouting(shortlist=3, margin=0.0, max_k=2, weight=1.0))
    assert probed == {"route_hit@1": 1.0, "route_recall": 1.0, "home_coverage": 1.0, "edges_asked": 1.0}


def test_home_coverage_counts_a_question_only_when_every_home_edge_is_asked() -> None:
    probes = {edge: ProbeScores(edge, score) for edge, score in {"a": 0.9, "b": 0.7, "c": 0.1}.items()}
    cases = [Case("q", frozenset({"a", "b"}), {0.0: MATCHES}, probes)]
    narrow = evaluate(cases, 0.0, ProbeRouting(shortlist=3, margin=0.1, max_k=3, weight=1.0))
    assert (narrow["route_recall"], narrow["home_coverage"]) == (1.0, 0.0), "b (0.7) is not within 0.1 of a"
    wide = evaluate(cases, 0.0, ProbeRouting(shortlist=3, margin=0.3, max_k=3, weight=1.0))
    assert (wide["home_coverage"], wide["edges_asked"]) == (1.0, 2.0)


def test_the_check_fires_where_another_edge_probes_clearly_better() -> None:
    cases = [_case("b", a=0.2, b=0.9, c=0.85)]
    loose = evidence_check(cases, 0.0)
    # asked at b (home): no other edge beats 0.9; asked at a or c: b does
    assert loose == {"terms": 0.0, "lexical": 0.0, "margin": 0.0, "fires_within": 0.0, "fires_out": 1.0}
    strict = evidence_check(cases, 0.1)
    assert strict["fires_out"] == 0.5, "c (0.85) is within 0.1 of b (0.9): only a's check fires"


def test_term_coverage_can_decide_between_edges_whose_evidence_ties() -> None:
    probes = {"a": ProbeScores("a", 0.6, term_coverage=0.2), "b": ProbeScores("b", 0.6, term_coverage=0.9)}
    cases = [Case("q", frozenset({"b"}), {0.0: MATCHES}, probes)]
    evidence_only = evaluate(cases, 0.0, ProbeRouting(shortlist=2, margin=0.0, max_k=1, weight=1.0))
    assert evidence_only["route_hit@1"] == 0.0, "a tie goes to the first edge by summaries (a)"
    with_terms = evaluate(cases, 0.0, ProbeRouting(shortlist=2, margin=0.0, max_k=1, weight=1.0, terms_weight=0.5))
    assert with_terms["route_hit@1"] == 1.0
    assert evidence_check(cases, 0.1, 0.0)["fires_out"] == 0.0
    assert evidence_check(cases, 0.1, 0.5)["fires_out"] == 1.0, "b beats a by 0.35 with terms"


def test_lexical_coverage_can_decide_between_edges_whose_evidence_ties() -> None:
    probes = {"a": ProbeScores("a", 0.6, lexical=0.3), "b": ProbeScores("b", 0.6, lexical=0.8)}
    cases = [Case("q", frozenset({"b"}), {0.0: MATCHES}, probes)]
    with_lexical = ProbeRouting(shortlist=2, margin=0.0, max_k=1, weight=1.0, lexical_weight=1.0)
    assert evaluate(cases, 0.0, with_lexical)["route_hit@1"] == 1.0
    assert evidence_check(cases, 0.1, 0.0, 1.0)["fires_out"] == 1.0, "b beats a by 0.5 with lexical coverage"
