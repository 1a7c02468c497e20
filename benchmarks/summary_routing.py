"""Benchmark: how well the cloud's summary index routes every question of a bundle (no language model).

    python -m benchmarks.summary_routing --bench simulation/bundles/multihop4 [--cache-dir .dgrag/sim-cache]
        [--config edge.toml] [--edge-pool 1,3]

Loads each edge's summaries from the simulation's index cache (built by `dgrag sim run`, same key), puts them
into the cloud's real SummaryIndex with the MiniLM embedder, and ranks them for every answerable question.
Prints, for each ``--edge-pool`` (the cloud's query.edge_pool: 1 ranks summaries on their own, N ranks them by
their edge's N best first), summary hit@1/3/5 (a home edge among the top-m summaries) overall and per question
type, and the questions missed at m=1 with the edge that took their place. Cheap: it embeds the cards and
the questions once (about a minute on two cores).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from edge_node.api import Edge
from shared.config import EdgeConfig, load_config
from shared.core.errors import DgragError
from shared.core.knowledge import SummaryCard, SummaryMatch
from shared.models.factory import build_embedder
from simulation.bundle import Question, load_edges, load_questions
from simulation.cloud_parts import SummaryIndex
from simulation.index_cache import index_location, is_complete
from simulation.indexing import docs_by_edge

DEPTHS = (1, 3, 5)


def edge_cards(bench: Path, cache_dir: Path, config: EdgeConfig) -> dict[str, list[SummaryCard]]:
    rows = docs_by_edge(bench / "docs.jsonl")
    out: dict[str, list[SummaryCard]] = {}
    for edge in load_edges(bench):
        _, where = index_location(cache_dir, bench, edge, rows.get(edge, []), config)
        if not is_complete(where):
            raise DgragError(
                f"no finished index for edge {edge!r} at {where}; run `dgrag sim run --bench {bench}` first"
            )
        with Edge.open(where, config) as built:
            out[edge] = built.summaries()
    return out


def report(questions: list[Question], rankings: list[list[SummaryMatch]], pool: int) -> None:
    hits: dict[str, dict[int, list[bool]]] = defaultdict(lambda: defaultdict(list))
    misses = []
    for q, matches in zip(questions, rankings, strict=True):
        ranked = [m.edge_id for m in matches]
        for m in DEPTHS:
            hit = bool(set(ranked[:m]) & set(q.home_edges))
            hits["all"][m].append(hit)
            hits[q.type][m].append(hit)
        if not hits["all"][1][-1]:
            misses.append((q.qid, list(q.home_edges), ranked[:1], q.question[:90]))
    print(f"\nedge_pool = {pool}")
    print("| questions | n | " + " | ".join(f"hit@{m}" for m in DEPTHS) + " |")
    print("|---|---|" + "---|" * len(DEPTHS))
    for group in ["all", *sorted(k for k in hits if k != "all")]:
        n = len(hits[group][1])
        cells = " | ".join(f"{sum(hits[group][m]) / n:.1%}" for m in DEPTHS)
        print(f"| {group} | {n} | {cells} |")
    print(f"missed at m=1 ({len(misses)}):")
    for qid, home, top, text in misses:
        print(f"  {qid} home={home} top={top} {text}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--cache-dir", type=Path, default=Path(".dgrag/sim-cache"))
    parser.add_argument("--config", type=Path, help="the edge config the simulation ran with (it keys the cache)")
    parser.add_argument("--edge-pool", default="1,3", help="comma-separated query.edge_pool values to compare")
    args = parser.parse_args(argv)
    config = load_config(EdgeConfig, args.config, environ={})
    try:
        cards = edge_cards(args.bench, args.cache_dir, config)
    except DgragError as exc:
        print(f"summary_routing: {exc}", file=sys.stderr)
        return 2
    embedder = build_embedder(config.embedder)
    index = SummaryIndex(embedder)
    for edge, edge_cards_ in cards.items():
        index.replace_edge(edge, edge_cards_)
    if not index.settle(1800.0):
        print("summary_routing: the summaries were not embedded within 1800 s", file=sys.stderr)
        return 1
    questions = [q for q in load_questions(args.bench) if q.answerable]
    vectors = embedder.embed([q.question for q in questions])
    print(f"summaries: {', '.join(f'{e} {len(c)}' for e, c in cards.items())}")
    for pool in (int(x) for x in args.edge_pool.split(",") if x.strip()):
        report(questions, [index.search(v, max(DEPTHS), pool) for v in vectors], pool)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
