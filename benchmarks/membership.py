"""Benchmark: can an asker tell which names a ``summaries_only`` edge's documents hold? (membership inference)

    python -m benchmarks.membership [--bench simulation/bundles/multihop4] [--target sports] [--names 100]
        [--levels summaries_only,chunks] [--out runs/membership]

A real network (simulation.bench_network): the target edge under each level of ``--levels`` in turn, the other
edges under ``chunks``. Members are names (runs of capitalised words) that only the target's documents hold;
non-members, names that only the other edges' documents hold. For each name an app asks the cloud "What do
you know about NAME?" and matches summaries to it, and an edge other than the target asks the question too.
Every field an asker sees becomes a score per name: whether the target is named anywhere in the reply (edges
asked, replied, failed, probes, summaries, context), its best summary score and rank, whether the answer
names the target's sources, whether the answer declines, how many edges were asked and how long the reply took.
The figure is each score's AUC at telling members from non-members (0.5: no better than a coin; the goal for
``summaries_only`` is at most 0.6). ``chunks`` shows the same scores when the target is named. Every name's
scores are written to ``rows.jsonl`` beside the table, so the AUCs can be recomputed
(``python -m benchmarks.membership --rows OUT/rows.jsonl``). Nothing else should use the CPU meanwhile (the
timing score depends on it).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import grpc

from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport.grpc_transport import auth_metadata
from simulation.bench_network import APP, Network, network
from simulation.bundle import load_edges
from simulation.indexing import docs_by_edge
from simulation.machine import machine_facts
from simulation.metrics import declines


def auc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """The probability that a positive case scores above a negative one (ties count half; 0.0 without pairs)."""
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / max(len(positives) * len(negatives), 1)


_NAME = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+){1,2}\b")


def names(texts: dict[str, list[str]], target: str, count: int, rng: random.Random) -> tuple[list[str], list[str]]:
    """``count`` names only the target's documents hold, and ``count`` only the other edges' documents hold."""
    mine = "\n".join(texts.get(target, [])).lower()
    theirs = "\n".join(t for e, ts in texts.items() if e != target for t in ts).lower()
    members = sorted({n for t in texts.get(target, []) for n in _NAME.findall(t) if n.lower() not in theirs})
    others = sorted({n for e, ts in texts.items() if e != target for t in ts for n in _NAME.findall(t)})
    non_members = [n for n in others if n.lower() not in mine]
    if min(len(members), len(non_members)) < count:
        raise SystemExit(f"only {len(members)} member and {len(non_members)} non-member names; lower --names")
    return rng.sample(members, count), rng.sample(non_members, count)


def scores(reply: cloud_pb2.GlobalQueryReply, target: str) -> dict[str, float]:
    """What one reply tells about the target."""
    named = {*reply.edges_asked, *reply.edges_replied, *reply.edges_failed, *reply.context_edges}
    named |= {p.edge_id for p in reply.probes} | {s.edge_id for s in reply.summaries}
    ranks = [i for i, s in enumerate(reply.summaries) if s.edge_id == target]
    return {
        "named in the reply": float(target in named),
        "asked": float(target in reply.edges_asked),
        "summary score": max((s.score for s in reply.summaries if s.edge_id == target), default=0.0),
        "summary rank (higher: earlier)": -float(ranks[0]) if ranks else -99.0,
        "answer cites it": float(f"{target}:" in reply.answer),
        "answer declines": float(declines(reply.answer)),
        "edges asked": float(len(reply.edges_asked)),
    }


def probe(net: Network, target: str, name: str, edge: str) -> dict[str, float]:
    question = f"What do you know about {name}?"
    out: dict[str, float] = {}
    with grpc.insecure_channel(net.cloud.address) as channel:
        stub = cloud_pb2_grpc.CloudStub(channel)
        app = auth_metadata(APP, net.tokens[APP])
        for who, metadata in (("app", app), ("edge", auth_metadata(edge, net.tokens[edge]))):
            started = time.perf_counter()
            reply = stub.GlobalQuery(cloud_pb2.GlobalQueryRequest(question=question), metadata=metadata, timeout=300)
            out[f"{who}: seconds"] = time.perf_counter() - started
            out |= {f"{who}: {k}": v for k, v in scores(reply, target).items()}
        matched = stub.MatchSummaries(cloud_pb2.MatchSummariesRequest(question=question, top_m=20), metadata=app)
        best = [m.score for m in matched.summaries if m.edge_id == target]
        out["app: match score"] = max(best, default=0.0)
        out["app: matched"] = float(bool(best))
    return out


def level_of(target: str, level: str) -> Callable[[str], str]:
    return lambda edge: level if edge == target else "chunks"


Row = dict[str, Any]


def measure(args: argparse.Namespace) -> list[Row]:
    """One row per level and name: whether it is a member and every score an asker sees."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DGRAG__")} | {"HF_HUB_OFFLINE": "1"}
    texts = {e: [str(r["text"]) for r in rs] for e, rs in docs_by_edge(args.bench / "docs.jsonl").items()}
    members, non_members = names(texts, args.target, args.names, random.Random(args.seed))
    asker = next(e for e in load_edges(args.bench) if e != args.target)
    rows: list[Row] = []
    for level in args.levels.split(","):
        work = args.out / "work" / level
        work.mkdir(parents=True, exist_ok=True)
        with network(work, args.bench, level_of(args.target, level), "paraphrase", env) as net:
            for i, name in enumerate(members + non_members, 1):
                seen = probe(net, args.target, name, asker)
                rows.append({"level": level, "name": name, "member": name in members, "scores": seen})
                print(f"  {level} {i}/{2 * args.names} {name}", flush=True)
    return rows


def aucs(rows: Sequence[Row]) -> dict[str, dict[str, float]]:
    """Per level, each score's AUC at telling members from non-members."""
    results: dict[str, dict[str, float]] = {}
    for level in dict.fromkeys(str(r["level"]) for r in rows):
        mine = [r for r in rows if r["level"] == level]
        scored = [(bool(r["member"]), dict(r["scores"])) for r in mine]
        features = sorted(scored[0][1])
        results[level] = {f: auc([s[f] for m, s in scored if m], [s[f] for m, s in scored if not m]) for f in features}
    return results


def read_rows(path: Path) -> list[Row]:
    """The rows a run wrote to rows.jsonl."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def table(results: dict[str, dict[str, float]]) -> str:
    lines = ["| what the asker sees | " + " | ".join(f"target {lv}" for lv in results) + " |"]
    lines.append("|---|" + "---:|" * len(results))
    for feature in sorted(next(iter(results.values()))):
        lines.append(f"| {feature} | " + " | ".join(f"{results[lv][feature]:.3f}" for lv in results) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", type=Path, default=Path("simulation/bundles/multihop4"))
    p.add_argument("--target", default="sports")
    p.add_argument("--names", type=int, default=100, help="members and as many non-members")
    p.add_argument("--levels", default="summaries_only,chunks")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=Path("runs/membership"))
    p.add_argument("--rows", type=Path, help="recompute the table from an earlier run's rows.jsonl (no network)")
    args = p.parse_args(argv)
    if args.rows is not None:
        print(table(aucs(read_rows(args.rows))))
        return
    args.out.mkdir(parents=True, exist_ok=True)
    rows = measure(args)
    (args.out / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    results = aucs(rows)
    report = {"machine": machine_facts().as_dict(), "target": args.target, "names": args.names, "auc": results}
    (args.out / "membership.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    (args.out / "table.md").write_text(table(results) + "\n", encoding="utf-8")
    print(table(results))


if __name__ == "__main__":
    main()
