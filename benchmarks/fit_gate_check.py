"""Fit the gate's threshold together with the evidence check (gate.check_other_edges, query.evidence_margin).

    python -m benchmarks.fit_gate_check --bundle RUN/answers.jsonl PROBES.json [--bundle ...]
        [--thresholds 0.25,0.3,0.35,0.375] [--margins off,0,0.05,0.1] [--terms 0.5] [--lexical 1]
        [--max-escalation-within 0.2]

Each ``--bundle`` pairs a simulation's answers (its ``local`` rows: the gate's signals per question and asked-at
edge) with the probe scores ``benchmarks.probe_routing --json`` wrote for the same bundle (every edge's evidence
score per question). For every threshold and margin the combined decision is replayed: the gate escalates when
its score is below the threshold (or the SLM refused); otherwise, with the check on, the question escalates when
another edge's probe beats the asking edge's own by more than the margin, each scored evidence + ``--terms`` ×
term coverage + ``--lexical`` × lexical coverage as the cloud scores them (query.probe_terms_weight,
query.probe_lexical_weight); the asking edge's own scores are its probe's.
Printed per bundle: escalation within, out and unanswerable (the check is not replayed for
unanswerable questions: they have no probes) and how many asks paid for a check. The chosen point has the
highest mean out-of-domain escalation over the bundles whose within-domain escalation stays at or below the
bound on every bundle; it is also fitted on one half of the questions and judged on the other.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.fit_gate import _score, gate_rows, split
from cloud_server.api import ProbeRouting
from shared.config import CloudQueryConfig, GateConfig
from shared.knowledge import ProbeScores
from simulation.answer_rows import read_rows

OFF = None
"""A margin of None: the check is off (the gate alone decides)."""
EVIDENCE_ONLY = ProbeRouting(0, 0.0, 1, 1.0)
"""Probe scores compared by evidence alone (no term or lexical coverage)."""
REFUSALS, CHECK_REFUSALS = GateConfig().refusal_share, GateConfig().check_refusal_share
"""The refusal shares that escalate by themselves: the gate alone, and with the check (gate.check_refusal_share)."""


@dataclass(frozen=True)
class Bundle:
    name: str
    rows: list[dict[str, Any]]
    probes: dict[str, dict[str, ProbeScores]]
    """Per question id: every probed edge's scores."""


@dataclass(frozen=True)
class Rates:
    within: float
    out: float
    unanswerable: float | None
    checks: float
    """Share of asks that paid for a check (the gate would have answered locally)."""


def load_bundle(rows_path: Path, probes_path: Path) -> Bundle:
    payload = json.loads(probes_path.read_text())
    if "cases" not in payload:
        raise SystemExit(f"{probes_path} has no per-question probe scores: rerun benchmarks.probe_routing --json")
    probes = {c["qid"]: {e: _probe(e, score, c["parts"][e]) for e, score in c["probes"].items()}
              for c in payload["cases"]}  # fmt: skip
    return Bundle(str(payload.get("bench", rows_path)), gate_rows(read_rows(rows_path)), probes)


def _probe(edge: str, score: float, parts: list[float]) -> ProbeScores:
    """An edge's probe from benchmarks.probe_routing's parts (coverage, chunk, terms[, lexical: newer files])."""
    return ProbeScores(edge, score, term_coverage=parts[2], lexical=parts[3] if len(parts) > 3 else 0.0)


def escalates(
    row: dict[str, Any],
    probes: dict[str, dict[str, ProbeScores]],
    threshold: float,
    margin: float | None,
    scoring: ProbeRouting = EVIDENCE_ONLY,
    check_refusals: float = CHECK_REFUSALS,
) -> bool:
    """The edge's decision for one ask: the gate, then (margin not None) the evidence check."""
    signals = row["signals"]
    if gate_escalates(signals, threshold, REFUSALS if margin is None else check_refusals):
        return True
    scores = probes.get(row["qid"])
    if margin is None or scores is None:
        return False
    scored = {e: scoring.probed(p) for e, p in scores.items()}
    own = scored.get(row["asked_at"], min(max(float(signals["evidence"]), 0.0), 1.0))
    others = max((s for e, s in scored.items() if e != row["asked_at"]), default=0.0)
    return others > own + margin


def gate_escalates(signals: dict[str, Any], threshold: float, refusals: float) -> bool:
    """The gate by itself: too many refusals, or a score below ``threshold``."""
    return bool(signals["refusal_share"] >= refusals or _score(signals, GATE_WEIGHTS) < threshold)


def _weights() -> dict[str, float]:
    g = GateConfig()
    return {"evidence": g.weight_evidence, "cosine": g.weight_cosine, "jaccard": g.weight_jaccard,
            "claims": g.weight_claims}  # fmt: skip


GATE_WEIGHTS = _weights()


def rates(
    bundle: Bundle,
    rows: list[dict[str, Any]],
    threshold: float,
    margin: float | None,
    scoring: ProbeRouting = EVIDENCE_ONLY,
    check_refusals: float = CHECK_REFUSALS,
) -> Rates:
    def share(kind: str) -> float | None:
        flags = [escalates(r, bundle.probes, threshold, margin, scoring, check_refusals)
                 for r in rows if r["kind"] == kind]  # fmt: skip
        return sum(flags) / len(flags) if flags else None

    gate_local = [r for r in rows if r["qid"] in bundle.probes
                  and not gate_escalates(r["signals"], threshold, check_refusals)]  # fmt: skip
    checks = len(gate_local) / len(rows) if margin is not None and rows else 0.0
    return Rates(share("within") or 0.0, share("out") or 0.0, share("unanswerable"), checks)


def choose(
    bundles: list[Bundle],
    rows: list[list[dict[str, Any]]],
    grid: list[tuple[float, float | None]],
    max_within: float,
    scoring: ProbeRouting = EVIDENCE_ONLY,
    check_refusals: float = CHECK_REFUSALS,
) -> tuple[float, float | None] | None:
    """The point with the highest mean out-of-domain escalation, within-domain at or below the bound everywhere."""
    best: tuple[float, tuple[float, float | None]] | None = None
    for threshold, margin in grid:
        found = [rates(b, r, threshold, margin, scoring, check_refusals) for b, r in zip(bundles, rows, strict=True)]
        if any(f.within > max_within for f in found):
            continue
        mean_out = sum(f.out for f in found) / len(found)
        if best is None or mean_out > best[0]:
            best = (mean_out, (threshold, margin))
    return best[1] if best else None


def _margin(text: str) -> float | None:
    return OFF if text.strip() == "off" else float(text)


def _label(margin: float | None) -> str:
    return "off" if margin is None else f"{margin:g}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bundle", nargs=2, action="append", type=Path, required=True, metavar=("ROWS", "PROBES"))
    parser.add_argument("--thresholds", default="0.2,0.25,0.275,0.3,0.325,0.35,0.375")
    parser.add_argument("--margins", default="off,0,0.02,0.05,0.1,0.15,0.2")
    cloud = CloudQueryConfig()
    parser.add_argument("--terms", type=float, default=cloud.probe_terms_weight, help="query.probe_terms_weight")
    parser.add_argument("--lexical", type=float, default=cloud.probe_lexical_weight, help="query.probe_lexical_weight")
    parser.add_argument("--check-refusal-share", type=float, default=CHECK_REFUSALS, help="gate.check_refusal_share")
    parser.add_argument("--max-escalation-within", type=float, default=0.2)
    args = parser.parse_args(argv)
    bundles = [load_bundle(rows, probes) for rows, probes in args.bundle]
    scoring = ProbeRouting(0, 0.0, 1, 1.0, args.terms, args.lexical)
    grid = [(float(t), _margin(m)) for t in args.thresholds.split(",") for m in args.margins.split(",")]
    for b in bundles:
        print(f"\n{b.name}: {len(b.rows)} asks\n")
        print("| threshold | check margin | escalation within | out | unanswerable | asks checked |")
        print("|---|---|---|---|---|---|")
        for threshold, margin in grid:
            r = rates(b, b.rows, threshold, margin, scoring, args.check_refusal_share)
            unans = "—" if r.unanswerable is None else f"{r.unanswerable:.1%}"
            print(f"| {threshold:g} | {_label(margin)} | {r.within:.1%} | {r.out:.1%} | {unans} | {r.checks:.1%} |")
    halves = [split(b.rows) for b in bundles]
    refusals = args.check_refusal_share
    half = choose(bundles, [h[0] for h in halves], grid, args.max_escalation_within, scoring, refusals)
    if half is not None:
        judged = [rates(b, h[1], *half, scoring, refusals) for b, h in zip(bundles, halves, strict=True)]
        pairs = zip(bundles, judged, strict=True)
        text = "; ".join(f"{b.name}: within {r.within:.1%}, out {r.out:.1%}" for b, r in pairs)
        print(f"\nfitted on half (threshold {half[0]:g}, margin {_label(half[1])}), judged on the other half: {text}")
    point = choose(bundles, [b.rows for b in bundles], grid, args.max_escalation_within, scoring, refusals)
    if point is None:
        print(f"\nno point keeps within-domain escalation <= {args.max_escalation_within:g} on every bundle")
        return 1
    if point[1] is None:
        print(f"\nchosen on all questions: [gate] threshold = {point[0]:g}; check_other_edges = false")
    else:
        print(f"\nchosen on all questions: [gate] check_other_edges = true, check_threshold = {point[0]:g}; "
              f"[query] evidence_margin = {point[1]:g}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
