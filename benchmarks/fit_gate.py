"""Fit the gate's threshold and weights on labelled questions and print the operating point.

    python -m benchmarks.fit_gate ROWS.jsonl [ROWS.jsonl ...] [--max-escalation-within 0.15]

ROWS are a simulation's answers.jsonl (its ``local`` rows), or rows that carry ``signals``: each has the
gate's signals and a kind (within = should stay local; out and unanswerable = should escalate). The fit uses the
fit half of the questions only (simulation.halves); the report half is judged with it. A grid over the weights
(summing to 1) and thresholds picks the point with the highest out-of-domain escalation whose within-domain
escalation stays at or below the bound (ties: lower within-domain escalation, then a weight closer to the
defaults). Refusals are applied as the gate applies them. Prints the TOML [gate] section to use.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shared.config import GateConfig
from simulation.answer_rows import read_rows
from simulation.edge_parts import gate_score
from simulation.halves import split

SIGNALS = ("evidence", "cosine", "jaccard", "claims")


@dataclass(frozen=True)
class OperatingPoint:
    weights: dict[str, float]
    threshold: float
    escalation_within: float
    escalation_out: float
    n_within: int
    n_out: int


def _score(signals: dict[str, Any], weights: dict[str, float]) -> float:
    return gate_score({k: signals.get(k) for k in weights}, weights)  # the gate's own formula


def fit(
    rows: list[dict[str, Any]], max_within: float, refusal_share: float = GateConfig().refusal_share, step: float = 0.1
) -> OperatingPoint:
    """The best grid point; raises ValueError without both kinds of rows."""
    within = [r for r in rows if r["kind"] == "within"]
    away = [r for r in rows if r["kind"] != "within"]
    if not within or not away:
        raise ValueError("need rows that should stay local (within) and rows that should escalate (out/unanswerable)")
    grid = [round(i * step, 3) for i in range(round(1 / step) + 1)]
    best: tuple[tuple[float, float, float], OperatingPoint] | None = None
    default = GateConfig()
    defaults = {
        "evidence": default.weight_evidence,
        "cosine": default.weight_cosine,
        "jaccard": default.weight_jaccard,
        "claims": default.weight_claims,
    }
    for combo in itertools.product(grid, repeat=len(SIGNALS)):
        if abs(sum(combo) - 1.0) > 1e-6:
            continue
        weights = dict(zip(SIGNALS, combo, strict=True))
        scored_in = [(_score(r["signals"], weights), r["signals"]["refusal_share"] >= refusal_share) for r in within]
        scored_out = [(_score(r["signals"], weights), r["signals"]["refusal_share"] >= refusal_share) for r in away]
        for threshold in sorted({round(s, 3) for s, _ in scored_in + scored_out} | {0.0}):
            esc_in = sum(1 for s, ref in scored_in if ref or s < threshold) / len(within)
            if esc_in > max_within:
                continue
            esc_out = sum(1 for s, ref in scored_out if ref or s < threshold) / len(away)
            distance = sum(abs(weights[k] - defaults[k]) for k in SIGNALS)
            key = (esc_out, -esc_in, -distance)
            if best is None or key > best[0]:
                best = (key, OperatingPoint(weights, threshold, esc_in, esc_out, len(within), len(away)))
    if best is None:
        raise ValueError(f"no grid point keeps within-domain escalation <= {max_within}")
    return best[1]


def rates(
    rows: list[dict[str, Any]], point: OperatingPoint, refusal_share: float = GateConfig().refusal_share
) -> dict[str, float | None]:
    """Escalation of ``rows`` at ``point`` per kind (within, out, unanswerable; None without rows of a kind),
    as docs/simulation.md defines escalation_within and escalation_out."""

    def escalated(r: dict[str, Any]) -> bool:
        sig = r["signals"]
        return bool(sig["refusal_share"] >= refusal_share or _score(sig, point.weights) < point.threshold)

    out: dict[str, float | None] = {}
    for kind in ("within", "out", "unanswerable"):
        flags = [escalated(r) for r in rows if r["kind"] == kind]
        out[kind] = sum(flags) / len(flags) if flags else None
    return out


def _rates_text(shares: dict[str, float | None]) -> str:
    return ", ".join(f"escalation_{k} {'—' if v is None else f'{v:.3f}'}" for k, v in shares.items())


def gate_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with ``signals``: rows that carry them as they are; a simulation's answers.jsonl rows of mode
    ``local`` (one per question and asked-at edge) with their gate's signals."""
    if all("signals" in r for r in rows):
        return rows
    return [{**r, "signals": r["gate"]} for r in rows if r.get("mode") == "local" and r.get("gate")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "rows",
        type=Path,
        nargs="+",
        help="simulations' answers.jsonl (.gz too), or JSONL rows with signals (several are pooled)",
    )
    parser.add_argument("--max-escalation-within", type=float, default=0.15)
    parser.add_argument("--step", type=float, default=0.1, help="weight grid step")
    args = parser.parse_args(argv)
    rows = [r for path in args.rows for r in gate_rows(read_rows(path))]
    train, held_out = split(rows)
    point = fit(train, args.max_escalation_within, step=args.step)
    print(
        f"fitted on the fit half only ({point.n_within} within-domain and {point.n_out} out-of-domain/unanswerable"
        f" rows); on the fit half: {_rates_text(rates(train, point))}"
    )
    print(f"on the report half ({len(held_out)} rows, never fitted on): {_rates_text(rates(held_out, point))}")
    print("[gate]")
    print(f"threshold = {point.threshold}")
    for k in SIGNALS:
        print(f"weight_{k} = {point.weights[k]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
