"""Benchmark: what a lying edge captures, from two finished runs on the same questions.

    dgrag sim run --bench simulation/bundles/multihop4 --out runs/honest --limit 80 --modes dgrag
    dgrag sim run --bench simulation/bundles/multihop4 --out runs/liar --limit 80 --modes dgrag --liar sports
    python -m benchmarks.lying_edge runs/honest runs/liar --liar sports

The liar (simulation.liar_host) lies as ``--liar-kind`` says (blunt by default: 1.0 in every probe score and for
every chunk it returns; echo, refuser, smart and stuffer are the others). For each run: the share of the asks
the cloud routed (edges asked) that went to the liar (goal: at most its honest share + 5 points), and the
escalation and answer accuracy of the asks at the honest edges, within and out of domain (goal: unchanged within
3 points).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from simulation.answer_rows import read_rows

Row = dict[str, Any]


def rows_of(run: Path) -> list[Row]:
    path = run / "answers.jsonl"
    return read_rows(path if path.exists() else run / "answers.jsonl.gz")


def figures(rows: Sequence[Row], liar: str) -> dict[str, float]:
    dgrag = [r for r in rows if r["mode"] == "dgrag"]
    routed = [r for r in dgrag if r.get("edges_asked")]
    out: dict[str, float] = {
        "routed asks": len(routed),
        "captured": sum(liar in r["edges_asked"] for r in routed) / max(len(routed), 1),
        "captured first": sum(r["edges_asked"][:1] == [liar] for r in routed) / max(len(routed), 1),
    }
    for kind in ("within", "out"):
        honest = [r for r in dgrag if r["asked_at"] != liar and r["kind"] == kind]
        out[f"{kind}: asks at honest edges"] = len(honest)
        out[f"{kind}: escalated"] = sum(bool(r["escalated"]) for r in honest) / max(len(honest), 1)
        out[f"{kind}: accuracy"] = sum(bool(r["correct"]) for r in honest) / max(len(honest), 1)
    return out


def same_questions(honest: Sequence[Row], lying: Sequence[Row]) -> list[Row]:
    """The honest run's rows of the questions the lying run asked (a liar run may ask a --limit of them)."""
    asked = {str(r["qid"]) for r in lying}
    return [r for r in honest if str(r["qid"]) in asked]


def table(honest: dict[str, float], lying: dict[str, float]) -> str:
    lines = ["| | honest run | with the liar | change |", "|---|---:|---:|---:|"]
    for key, value in honest.items():
        other = lying[key]
        if key.endswith(("asks", "edges")):
            lines.append(f"| {key} | {value:.0f} | {other:.0f} | |")
        else:
            lines.append(f"| {key} | {value:.1%} | {other:.1%} | {100 * (other - value):+.1f} points |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("honest", type=Path, help="a run with every edge honest")
    p.add_argument("lying", type=Path, help="the same run with --liar")
    p.add_argument("--liar", required=True, help="the edge that lied")
    args = p.parse_args(argv)
    lying = rows_of(args.lying)
    print(table(figures(same_questions(rows_of(args.honest), lying), args.liar), figures(lying, args.liar)))


if __name__ == "__main__":
    main()
