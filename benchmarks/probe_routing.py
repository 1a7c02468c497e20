"""Benchmark: two-stage routing (summaries, then probes) on every answerable question of a bundle, no SLM.

    python -m benchmarks.probe_routing --bench simulation/bundles/lihua4 [--cache-dir .dgrag/sim-cache]
        [--sparse 0,0.1,0.2] [--shortlist 2,3,4] [--weight 1,0.7,0.5] [--terms 0,0.5,1] [--margin 0,0.02,0.05,0.1]
        [--lexical 0,0.5,1] [--max-k 1,2,3]
        [--evidence-margin 0,0.05,0.1,0.2] [--json OUT]

Loads each edge's index from the simulation's cache (built by `dgrag sim run`), puts the summaries into the
cloud's real SummaryIndex (stage 1: dense, and fused with BM25 for each ``--sparse`` weight) and runs each
edge's real probe (its retrieval scores, as the cloud's probe request does) for every question. Then, for
every combination of the stage-2 settings, the same chooser the cloud runs (cloud_server.routing.choice)
picks the edges to ask. Printed per setting: route hit@1 (the first edge asked is a home edge), route recall
(some edge asked is a home edge), edges asked per question; and the summaries-only baseline (top-k = 1).
And the gate's evidence check (gate.check_other_edges) per ``--evidence-margin``: how often another edge's probe
beats the asking edge's own evidence by the margin, asked at a home edge (an escalation the check adds where the
edge knows the answer) and at another edge (one it adds where the edge does not).
Models: MiniLM for embeddings; the SLM is never called (a probe does not generate), so a scripted stand-in is
loaded instead. Use it to fit the defaults on the dev questions.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.summary_routing import edge_cards
from edge_node.api import Edge, EdgeModels
from shared.config import EdgeConfig, load_config
from shared.core.knowledge import ProbeScores, SummaryMatch
from shared.core.model_api import GenerationRequest
from shared.models.factory import build_embedder
from shared.models.tokenizer import WordPieceTokenizer
from simulation.bundle import load_edges, load_questions
from simulation.cloud_parts import ProbeRouting, SummaryIndex, choose_edges
from simulation.fakes import ScriptedGenerator
from simulation.halves import half_of
from simulation.index_cache import index_location
from simulation.indexing import docs_by_edge
from simulation.machine import machine_facts

RANKED = 20
"""Summaries ranked per question (stage 1)."""


@dataclass(frozen=True)
class Case:
    qid: str
    home: frozenset[str]
    matches: dict[float, list[SummaryMatch]]
    """Stage-1 ranking per sparse weight."""
    probes: dict[str, ProbeScores]


EMBED_WAIT_S = 1800.0
"""How long the summaries may take to be embedded before the ranking starts."""


def _no_slm(request: GenerationRequest) -> str:
    """The SLM's stand-in: a probe scores the edge's retrieval and never generates."""
    return ""


def _floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x.strip()]


def collect(
    bench: Path, cache_dir: Path, config: EdgeConfig, probe_edges: int, sparse: list[float], half: str = "all"
) -> tuple[list[Case], float]:
    """Stage-1 rankings (per sparse weight) and the probes of the first ``probe_edges`` ranked edges of any of
    them, for every answerable question of ``half`` (fit, report or all); and the mean probe time (seconds)."""
    embedder = build_embedder(config.embedder)
    index = SummaryIndex(embedder)
    for edge, cards in edge_cards(bench, cache_dir, config).items():
        index.replace_edge(edge, cards)
    if not index.settle(EMBED_WAIT_S):
        raise RuntimeError(f"the summaries were not embedded within {EMBED_WAIT_S:.0f} s")
    rows = docs_by_edge(bench / "docs.jsonl")
    models = EdgeModels(ScriptedGenerator(_no_slm), embedder, WordPieceTokenizer())
    edges = {}
    for edge in load_edges(bench):
        _, where = index_location(cache_dir, bench, edge, rows.get(edge, []), config)
        edges[edge] = Edge.open(where, config, models=models)
    questions = [
        q for q in load_questions(bench) if q.answerable and (half == "all" or half_of(q.qid).name.lower() == half)
    ]
    vectors = embedder.embed([q.question for q in questions])
    cases, seconds = [], []
    try:
        for n, (q, v) in enumerate(zip(questions, vectors, strict=True), start=1):
            matches = {w: index.search(v, RANKED, 3, q.question, w) for w in sparse}
            probes = {}
            for edge in {e for ranked in matches.values() for e in choose_edges(ranked, probe_edges)}:
                started = time.perf_counter()
                probes[edge] = edges[edge].probe(q.question)
                seconds.append(time.perf_counter() - started)
            cases.append(Case(q.qid, frozenset(q.home_edges), matches, probes))
            if n % 50 == 0:
                print(f"probed {n}/{len(questions)} questions", file=sys.stderr)
    finally:
        for edge_handle in edges.values():
            edge_handle.close()
    return cases, sum(seconds) / max(len(seconds), 1)


def evaluate(cases: list[Case], sparse: float, routing: ProbeRouting | None) -> dict[str, Any]:
    """Route hit@1, route recall, home coverage (every home edge asked) and edges asked per question under
    ``routing`` (None: summaries, top-k 1)."""
    hit1 = recall = covered = asked = 0
    for case in cases:
        matches = case.matches[sparse]
        if routing is None:
            chosen = choose_edges(matches, 1)
        else:
            shortlist = choose_edges(matches, routing.shortlist)
            chosen = routing.choose([case.probes[e] for e in shortlist], matches, routing.max_k)
        hit1 += bool(chosen and chosen[0] in case.home)
        recall += bool(set(chosen) & case.home)
        covered += case.home <= set(chosen)
        asked += len(chosen)
    n = max(len(cases), 1)
    return {
        "route_hit@1": round(hit1 / n, 4),
        "route_recall": round(recall / n, 4),
        "home_coverage": round(covered / n, 4),
        "edges_asked": round(asked / n, 3),
    }


def evidence_check(
    cases: list[Case], margin: float, terms_weight: float = 0.0, lexical_weight: float = 0.0
) -> dict[str, Any]:
    """How often the evidence check fires asked at a home edge (within) and at another probed edge (out); the
    other edges checked are every other probed one (the cloud checks its shortlist less the asking edge). Scores
    as the cloud compares them (ProbeRouting.probed with these weights)."""
    within = out = n_within = n_out = 0
    scoring = ProbeRouting(0, 0.0, 1, 1.0, terms_weight, lexical_weight)
    for case in cases:
        scores = {e: scoring.probed(p) for e, p in case.probes.items() if not p.error}
        for edge, own in scores.items():
            fires = max((s for e, s in scores.items() if e != edge), default=0.0) > own + margin
            if edge in case.home:
                n_within, within = n_within + 1, within + fires
            else:
                n_out, out = n_out + 1, out + fires
    return {
        "terms": terms_weight,
        "lexical": lexical_weight,
        "margin": margin,
        "fires_within": round(within / max(n_within, 1), 4),
        "fires_out": round(out / max(n_out, 1), 4),
    }


def case_scores(case: Case) -> dict[str, Any]:
    """One question's probe scores per edge (for benchmarks.fit_gate_check); failed probes are left out."""
    answered = {e: p for e, p in case.probes.items() if not p.error}
    scores = {e: round(p.score, 6) for e, p in answered.items()}
    parts = {
        e: [round(x, 6) for x in (p.name_coverage, p.best_chunk, p.term_coverage, p.lexical)]
        for e, p in answered.items()
    }
    return {"qid": case.qid, "home": sorted(case.home), "probes": scores, "parts": parts}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--cache-dir", type=Path, default=Path(".dgrag/sim-cache"))
    parser.add_argument("--config", type=Path, help="the edge config the simulation ran with (it keys the cache)")
    parser.add_argument("--sparse", default="0,0.1,0.2,0.4", help="stage-1 sparse weights (query.sparse_weight)")
    parser.add_argument("--shortlist", default="2,3,4")
    parser.add_argument("--weight", default="1,0.7,0.5")
    parser.add_argument("--terms", default="0,0.5,1", help="weights of the term coverage (query.probe_terms_weight)")
    parser.add_argument("--lexical", default="0,1", help="weights of the lexical coverage (query.probe_lexical_weight)")
    parser.add_argument("--margin", default="0,0.02,0.05,0.1")
    parser.add_argument("--max-k", default="1,2,3")
    parser.add_argument("--evidence-margin", default="0,0.05,0.1,0.2", help="gate check margins to evaluate")
    parser.add_argument("--json", type=Path, help="also write every setting's figures here")
    parser.add_argument("--half", choices=("fit", "report", "all"), default="fit", help="the questions fitted on")
    args = parser.parse_args(argv)
    config = load_config(EdgeConfig, args.config, environ={})
    shortlists = [int(x) for x in _floats(args.shortlist)]
    sparse = _floats(args.sparse)
    cases, probe_s = collect(args.bench, args.cache_dir, config, max(shortlists), sparse, args.half)
    results = [{"setting": f"sparse {w:g}, summaries only (top-k 1)", **evaluate(cases, w, None)} for w in sparse]
    max_ks = [int(x) for x in _floats(args.max_k)]
    stage2 = (_floats(args.weight), _floats(args.terms), _floats(args.lexical), _floats(args.margin), max_ks)
    grid = itertools.product(sparse, shortlists, *stage2)
    for w, shortlist, weight, terms, lexical, margin, max_k in grid:
        routing = ProbeRouting(shortlist, margin, max_k, weight, terms, lexical)
        setting = f"sparse {w:g}, shortlist {shortlist}, weight {weight:g}, terms {terms:g}, lexical {lexical:g}"
        setting += f", margin {margin:g}"
        setting += f", max_k {max_k}"
        results.append({"setting": setting, **evaluate(cases, w, routing)})
    print(machine_facts().markdown())
    probe_ms = f"mean probe {probe_s * 1000:.1f} ms (one edge)"
    print(f"\n{args.bench}, {args.half} half: {len(cases)} answerable questions; {probe_ms}\n")
    print("| setting | route hit@1 | route recall | every home edge | edges asked |\n|---|---|---|---|---|")
    for r in results:
        figures = (
            f"{r['route_hit@1']:.1%} | {r['route_recall']:.1%} | {r['home_coverage']:.1%} | {r['edges_asked']:.2f}"
        )
        print(f"| {r['setting']} | {figures} |")
    weights = itertools.product(_floats(args.terms), _floats(args.lexical), _floats(args.evidence_margin))
    checks = [evidence_check(cases, m, t, x) for t, x, m in weights]
    print("\n| terms weight | lexical weight | evidence margin | check fires within | check fires out |")
    print("|---|---|---|---|---|")
    for c in checks:
        fires = f"{c['fires_within']:.1%} | {c['fires_out']:.1%}"
        print(f"| {c['terms']:g} | {c['lexical']:g} | {c['margin']:g} | {fires} |")
    if args.json:
        payload = {
            "bench": str(args.bench),
            "probe_ms": probe_s * 1000,
            "results": results,
            "checks": checks,
            "cases": [case_scores(c) for c in cases],
        }
        args.json.write_text(json.dumps(payload))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
