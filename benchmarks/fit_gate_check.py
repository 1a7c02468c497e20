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
bound on every bundle, on the fit half of the questions only (simulation/halves.py); it is then judged on the
report half.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.fit_gate import _score, gate_rows
from shared.config import CloudQueryConfig, GateConfig
from shared.core.knowledge import ProbeScores
from simulation.answer_rows import read_rows
from simulation.cloud_parts import ProbeRouting, bounded_lexical
from simulation.halves import split

OFF = None
"""A margin of None: the check is off (the gate alone decides)."""
EVIDENCE_ONLY = ProbeRouting(0, 0.0, 1, 1.0)
"""Probe scores compared by evidence alone (no term or lexical coverage)."""
THRESHOLD = GateConfig().threshold
ANSWERS = 4
"""answer.n_answers of rows that do not say how many answers they sampled."""
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
    data = probes_path.read_bytes()
    payload = json.loads(gzip.decompress(data) if probes_path.suffix == ".gz" else data)
    if "cases" not in payload:
        raise SystemExit(f"{probes_path} has no per-question probe scores: rerun benchmarks.probe_routing --json")
    probes = {
        c["qid"]: {e: _probe(e, score, c["parts"][e]) for e, score in c["probes"].items()} for c in payload["cases"]
    }
    return Bundle(str(payload.get("bench", rows_path)), gate_rows(read_rows(rows_path)), probes)


def _probe(edge: str, score: float, parts: list[float]) -> ProbeScores:
    """An edge's probe from benchmarks.probe_routing's parts (coverage, chunk, terms[, lexical: newer files])."""
    lexical = bounded_lexical(parts[3], parts[2]) if len(parts) > 3 else 0.0  # as the cloud takes a probe
    return ProbeScores(edge, score, term_coverage=parts[2], lexical=lexical)


@dataclass(frozen=True)
class Point:
    """One setting of the decision (edge_node.query.escalation): gate.check_threshold, gate.evidence_margin (None:
    the check is off, the gate alone decides) and gate.stay_margin; gate.threshold stays as configured."""

    check_threshold: float
    evidence_margin: float | None
    stay_margin: float = 0.0
    unsupported_weight: float = 1.0
    """gate.unsupported_weight: how much an unsupported answer counts as a refusal."""

    def label(self) -> str:
        if self.evidence_margin is None:
            return f"check off, threshold {THRESHOLD:g}, unsupported_weight {self.unsupported_weight:g}"
        return (
            f"check_threshold {self.check_threshold:g}, evidence_margin {self.evidence_margin:g}, "
            f"stay_margin {self.stay_margin:g}, unsupported_weight {self.unsupported_weight:g}"
        )


def escalates(
    row: dict[str, Any],
    probes: dict[str, dict[str, ProbeScores]],
    point: Point,
    scoring: ProbeRouting = EVIDENCE_ONLY,
    check_refusals: float = CHECK_REFUSALS,
) -> bool:
    """The edge's decision for one ask, as edge_node.query.escalation.decide makes it: trusted answers (score at
    or above gate.threshold, few refusals) escalate when another edge beats this one by ``evidence_margin``;
    doubtful ones (at or above ``check_threshold``) stay only when this edge leads every other by ``stay_margin``;
    the rest escalate. With the check off the gate's threshold alone decides. A question without probe scores
    (unanswerable ones) meets no other edge in the check."""
    trusted, doubtful = bands(row, point, check_refusals)
    if point.evidence_margin is None:
        return not trusted
    if not (trusted or doubtful):
        return True
    signals = row["signals"]
    scores = probes.get(row["qid"], {})
    scored = {e: scoring.probed(p) for e, p in scores.items()}
    own = scored.get(row["asked_at"], min(max(float(signals["evidence"]), 0.0), 1.0))
    others = max((s for e, s in scored.items() if e != row["asked_at"]), default=0.0)
    lead = point.evidence_margin if trusted else -point.stay_margin
    return others > own + lead


def refusal_share(row: dict[str, Any], unsupported_weight: float) -> float:
    """The gate's refusal share with unsupported answers weighed by ``unsupported_weight`` instead of 1 (the row
    records how many of its ``generations`` were unsupported and not also declines or degenerate)."""
    signals = row["signals"]
    n = int(row.get("generations") or ANSWERS)
    return max(
        float(signals["refusal_share"]) - (1.0 - unsupported_weight) * int(signals.get("unsupported", 0)) / n, 0.0
    )


def bands(row: dict[str, Any], point: Point, check_refusals: float = CHECK_REFUSALS) -> tuple[bool, bool]:
    """Whether the ask's local answer is trusted, and whether it is doubtful (edge_node.query.escalation)."""
    score, refusals = _score(row["signals"], GATE_WEIGHTS), refusal_share(row, point.unsupported_weight)
    trusted = score >= THRESHOLD and refusals < REFUSALS
    return trusted, score >= point.check_threshold and refusals < check_refusals


def checked(row: dict[str, Any], point: Point, check_refusals: float = CHECK_REFUSALS) -> bool:
    """Whether the ask pays for an evidence check (trusted or doubtful, with the check on)."""
    return point.evidence_margin is not None and any(bands(row, point, check_refusals))


def _weights() -> dict[str, float]:
    g = GateConfig()
    return {
        "evidence": g.weight_evidence,
        "cosine": g.weight_cosine,
        "jaccard": g.weight_jaccard,
        "claims": g.weight_claims,
    }


GATE_WEIGHTS = _weights()


def rates(
    bundle: Bundle,
    rows: list[dict[str, Any]],
    point: Point,
    scoring: ProbeRouting = EVIDENCE_ONLY,
    check_refusals: float = CHECK_REFUSALS,
) -> Rates:
    def share(kind: str) -> float | None:
        flags = [escalates(r, bundle.probes, point, scoring, check_refusals) for r in rows if r["kind"] == kind]
        return sum(flags) / len(flags) if flags else None

    checks = sum(checked(r, point, check_refusals) for r in rows) / len(rows) if rows else 0.0
    return Rates(share("within") or 0.0, share("out") or 0.0, share("unanswerable"), checks)


def choose(
    bundles: list[Bundle],
    rows: list[list[dict[str, Any]]],
    grid: list[Point],
    max_within: float,
    scoring: ProbeRouting = EVIDENCE_ONLY,
    check_refusals: float = CHECK_REFUSALS,
    objective: str = "out",
) -> Point | None:
    """The best point among those whose within-domain escalation is at or below the bound on every bundle (ties:
    the fewer checks). ``out``: the highest mean out-of-domain escalation. ``youden``: the highest worst-bundle
    out - within (Youden's J, escalation out of domain as the hit rate and within as the false alarms), which
    does not buy out-of-domain escalation by spending the whole within-domain budget."""
    best: tuple[float, float, Point] | None = None
    for point in grid:
        found = [rates(b, r, point, scoring, check_refusals) for b, r in zip(bundles, rows, strict=True)]
        if any(f.within > max_within for f in found):
            continue
        if objective == "youden":
            value = min(f.out - f.within for f in found)
        else:
            value = sum(f.out for f in found) / len(found)
        mean_checks = sum(f.checks for f in found) / len(found)
        if best is None or (value, -mean_checks) > (best[0], -best[1]):
            best = (value, mean_checks, point)
    return best[2] if best else None


def _described(bundles: list[Bundle], found: list[Rates], rows: list[list[dict[str, Any]]]) -> str:
    """Each bundle's escalation within / out ('no rows' where the half holds none of its questions)."""
    return "; ".join(
        f"{b.name}: within {r.within:.1%}, out {r.out:.1%}" if n else f"{b.name}: no rows"
        for b, r, n in zip(bundles, found, rows, strict=True)
    )


def _margin(text: str) -> float | None:
    return OFF if text.strip() == "off" else float(text)


def _label(margin: float | None) -> str:
    return "off" if margin is None else f"{margin:g}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bundle", nargs=2, action="append", type=Path, required=True, metavar=("ROWS", "PROBES"))
    parser.add_argument("--check-thresholds", default="0.1,0.15,0.2,0.25,0.3")
    parser.add_argument("--margins", default="off,0,0.05,0.1,0.15,0.2,0.3", help="gate.evidence_margin values")
    parser.add_argument("--stay-margins", default="-0.1,0,0.05,0.1,0.15,0.2", help="gate.stay_margin values")
    parser.add_argument("--unsupported-weights", default="1", help="gate.unsupported_weight values, e.g. 1,0.5,0")
    cloud = CloudQueryConfig()
    parser.add_argument("--terms", type=float, default=cloud.probe_terms_weight, help="query.probe_terms_weight")
    parser.add_argument("--lexical", type=float, default=cloud.probe_lexical_weight, help="query.probe_lexical_weight")
    parser.add_argument("--check-refusal-share", type=float, default=CHECK_REFUSALS, help="gate.check_refusal_share")
    parser.add_argument("--max-escalation-within", type=float, default=0.15)
    parser.add_argument("--objective", choices=("out", "youden"), default="youden", help="see choose()")
    args = parser.parse_args(argv)
    bundles = [load_bundle(rows, probes) for rows, probes in args.bundle]
    scoring = ProbeRouting(0, 0.0, 1, 1.0, args.terms, args.lexical)
    grid = [
        dataclasses.replace(point, unsupported_weight=float(w))
        for w in args.unsupported_weights.split(",")
        for point in _grid(args.check_thresholds, args.margins, args.stay_margins)
    ]
    refusals = args.check_refusal_share
    for b in bundles:
        print(f"\n{b.name}: {len(b.rows)} asks\n")
        print(
            "| check_threshold | evidence_margin | stay_margin | unsupported_weight | escalation within | out | "
            "unanswerable | checked |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for point in grid:
            r = rates(b, b.rows, point, scoring, refusals)
            unans = "—" if r.unanswerable is None else f"{r.unanswerable:.1%}"
            print(
                f"| {point.check_threshold:g} | {_label(point.evidence_margin)} | {point.stay_margin:g} | "
                f"{point.unsupported_weight:g} | "
                f"{r.within:.1%} | {r.out:.1%} | {unans} | {r.checks:.1%} |"
            )
    halves = [split(b.rows) for b in bundles]
    fit = [h[0] for h in halves]
    chosen = choose(bundles, fit, grid, args.max_escalation_within, scoring, refusals, args.objective)
    if chosen is None:
        print(f"\nno point keeps within-domain escalation <= {args.max_escalation_within:g} on the fit half")
        return 1
    judged = [rates(b, h[1], chosen, scoring, refusals) for b, h in zip(bundles, halves, strict=True)]
    fitted = [rates(b, h[0], chosen, scoring, refusals) for b, h in zip(bundles, halves, strict=True)]
    text = _described(bundles, judged, [h[1] for h in halves])
    text_fit = _described(bundles, fitted, [h[0] for h in halves])
    print(f"\nchosen on the fit half only ({args.objective}): [gate] {chosen.label()}; there: {text_fit}")
    print(f"judged on the report half (never fitted on): {text}")
    return 0


def _grid(check_thresholds: str, margins: str, stay_margins: str) -> list[Point]:
    points = [Point(0.0, None)]
    for t in check_thresholds.split(","):
        for m in margins.split(","):
            if m.strip() == "off":
                continue
            points += [Point(float(t), float(m), float(stay)) for stay in stay_margins.split(",")]
    return points


if __name__ == "__main__":
    raise SystemExit(main())
