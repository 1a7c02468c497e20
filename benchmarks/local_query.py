"""Benchmark of the local path and the gate on one edge of a bundle.

    python -m benchmarks.local_query --bench simulation/bundles/multihop4 --edge business \
        --data-dir .dgrag/bench-business

Asks the edge its within-domain questions (it is a home edge), the out-of-domain questions the 'Asked at'
rule sends to it, and the unanswerable ones sent to it; prints escalation rates, evidence recall,
accuracy beside the majority baseline, p50/p95 per phase and the cost of the n-answer batch against a
single answer. Writes one JSON row per question (signals included) for benchmarks.fit_gate.
The edge is indexed first if --data-dir holds no knowledge yet.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

from edge_node.api import Edge
from shared.config import EdgeConfig, load_config
from shared.models.cpu import resolve_threads
from simulation.bundle import Asked, asked_at, load_edges, load_questions
from simulation.machine import machine_facts
from simulation.metrics import evidence_recall, percentile
from simulation.scoring import shape_baseline, strictly_correct

PHASES = ("keywording", "retrieval", "generation", "gate")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, default=Path("simulation/bundles/multihop4"))
    parser.add_argument("--edge", default="business")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--config", type=Path)
    parser.add_argument("--limit", type=int, default=0, help="deterministic sample of N asked questions (0 = all)")
    parser.add_argument("--single-sample", type=int, default=10, help="questions re-asked with one answer (cost)")
    parser.add_argument("--out", type=Path, help="JSONL of per-question rows (default: DATA_DIR/local_query.jsonl)")
    args = parser.parse_args(argv)
    config = dataclasses.replace(load_config(EdgeConfig, args.config), edge_id=args.edge)
    edges = load_edges(args.bench)
    asked = [a for a in asked_at(load_questions(args.bench), edges) if a.edge == args.edge]
    if args.limit and args.limit < len(asked):
        asked = sorted(random.Random(0).sample(asked, args.limit), key=lambda a: (a.kind, a.question.qid))
    with Edge.open(args.data_dir, config) as edge:
        if edge.stats(with_document_ids=False).documents == 0:
            edge.ingest([args.bench / "docs.jsonl"], bundle_edge=args.edge)
        rows = [_row(edge, a) for a in tqdm(asked, desc="questions", file=sys.stderr)]
        single, batch = _batch_cost(edge, asked[: args.single_sample])
    out = args.out or args.data_dir / "local_query.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print_report(rows, config, single, batch, out)
    return 0


def _row(edge: Edge, a: Asked) -> dict[str, Any]:
    result = edge.query(a.question.question, mode="local").local
    gate = result.gate
    assert gate is not None
    docs = [s.doc_id for s in result.retrieval.sources]
    return {
        "qid": a.question.qid,
        "kind": a.kind,
        "question": a.question.question,
        "gold": a.question.answer,
        "answer": result.answer,
        "decision": result.decision,
        "short": result.reading.get("short", ""),
        "correct": strictly_correct(result.reading.get("short", ""), a.question.answer, result.answer),
        "evidence_recall": evidence_recall(a.question.evidence_doc_ids, docs),
        "signals": {
            "cosine": gate.cosine,
            "jaccard": gate.jaccard,
            "claims": gate.claims,
            "evidence": gate.evidence,
            "refusal_share": gate.refusal_share,
            "name_coverage": result.retrieval.evidence.name_coverage,
            "best_chunk": result.retrieval.evidence.best_chunk,
        },
        "score": gate.score,
        "timings": result.timings,
        "answers": result.answers,
    }


def _batch_cost(edge: Edge, asked: list[Asked]) -> tuple[list[float], list[float]]:
    """Seconds per question with one answer (no sampling, no gate) and with the n-answer batch."""
    single: list[float] = []
    batch: list[float] = []
    for a in asked:
        t = time.perf_counter()
        edge.query(a.question.question, mode="local", ablations=frozenset({"bq", "se"}))
        single.append(time.perf_counter() - t)
        t = time.perf_counter()
        edge.query(a.question.question, mode="local")
        batch.append(time.perf_counter() - t)
    return single, batch


def print_report(
    rows: list[dict[str, Any]], config: EdgeConfig, single: list[float], batch: list[float], out: Path
) -> None:
    def share(kind: str, pred: Any) -> str:
        sel = [r for r in rows if r["kind"] == kind]
        return f"{sum(1 for r in sel if pred(r)) / len(sel):.3f} (n={len(sel)})" if sel else "n/a"

    escalated = lambda r: r["decision"] == "escalate"  # noqa: E731
    print(
        f"questions: {len(rows)}   gate: threshold {config.gate.threshold}, weights cos {config.gate.weight_cosine}"
        f" jac {config.gate.weight_jaccard} claims {config.gate.weight_claims} evidence {config.gate.weight_evidence}"
    )
    print(f"escalation_within        {share('within', escalated)}")
    print(f"escalation_out           {share('out', escalated)}")
    print(f"escalation_unanswerable  {share('unanswerable', escalated)}")
    within = [r for r in rows if r["kind"] == "within"]
    if within:
        print(f"evidence_recall_within   {statistics.mean(r['evidence_recall'] for r in within):.3f}")
    for kind in ("within", "out", "unanswerable"):
        sel = [r for r in rows if r["kind"] == kind]
        if sel:
            base = shape_baseline([{"question": r["question"], "gold": r["gold"]} for r in sel]).accuracy
            acc = sum(r["correct"] for r in sel) / len(sel)
            print(f"accuracy_{kind:13s} {acc:.3f} (strict)   shape-aware baseline {base:.3f}")
    print("phase        p50 s    p95 s")
    for phase in PHASES:
        values = [r["timings"].get(phase, 0.0) for r in rows]
        print(f"{phase:12s} {percentile(values, 50):7.3f}  {percentile(values, 95):7.3f}")
    if single and batch:
        ratio = statistics.median(batch) / statistics.median(single)
        print(
            f"batch cost: n={config.answer.n_answers} + gate median {statistics.median(batch):.2f} s vs one answer"
            f" {statistics.median(single):.2f} s -> {ratio:.2f}x (n={len(single)})"
        )
    print(f"rows: {out}")
    print(machine_facts({"slm_threads": str(resolve_threads(config.slm.n_threads))}).markdown())


if __name__ == "__main__":
    sys.exit(main())
