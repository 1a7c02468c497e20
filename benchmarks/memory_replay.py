"""Benchmark: does the routing memory help? The cloud's stage 2 replayed over a bundle's questions, no SLM.

    python -m benchmarks.memory_replay --bench simulation/bundles/lihua4 [--weights 0,0.1,0.2,0.4] [--passes 2]
        [--seed 7] [--cache-dir .dgrag/sim-cache]

The probes are the edges' real retrievals over the simulation's cached indexes (as benchmarks.probe_routing
collects them), the summaries go into the cloud's real SummaryIndex, and the cloud's real RoutingMemory and
chooser route every answerable question in a seeded order, ``--passes`` times (a second pass asks every question
again: what a memory can do for repeated questions). After each question the memory records what the cloud
would record: each probed edge's probe score, and for an asked edge half its evidence and half its place in
the merged context (taken as given: the merge keeps every asked edge's best chunks at these sizes). The home
edges are used only to score the routes. Printed per memory weight and pass: route hit@1, route recall, edges
asked, and the share of questions with a close memory (cosine >= 0.8) of some edge.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Any

from benchmarks.probe_routing import Case, collect
from cloud_server.experiments import ProbeRouting, RoutingMemory, choose_edges
from shared.config import CloudQueryConfig, EdgeConfig, load_config
from simulation.machine import machine_facts


def replay(cases: list[Case], weight: float, passes: int, cfg: CloudQueryConfig) -> list[dict[str, Any]]:
    routing = ProbeRouting.from_config(cfg)
    memory = RoutingMemory(len(cases[0].vector), cfg.memory_capacity, cfg.memory_half_life)
    rows = []
    for n in range(1, passes + 1):
        hit1 = recall = asked = primed = 0
        for case in cases:
            matches = case.matches[cfg.sparse_weight]
            shortlist = choose_edges(matches, routing.shortlist)
            probes = [case.probes[e] for e in shortlist]
            prior = memory.prior(case.vector)
            primed += bool(prior)
            bonus = {e: weight * (u - 0.5) for e, u in prior.items()} if weight > 0 else {}
            chosen = routing.choose(probes, matches, routing.max_k, bonus)
            hit1 += bool(chosen and chosen[0] in case.home)
            recall += bool(set(chosen) & case.home)
            asked += len(chosen)
            useful = {p.edge_id: p.score for p in probes if not p.error}
            useful |= {e: 0.5 * useful.get(e, 0.0) + 0.5 for e in chosen}
            memory.record(case.vector, useful)
        k = len(cases)
        rows.append(
            {
                "weight": weight,
                "pass": n,
                "route_hit@1": hit1 / k,
                "route_recall": recall / k,
                "edges_asked": asked / k,
                "with_memory": primed / k,
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, required=True)
    parser.add_argument("--cache-dir", type=Path, default=Path(".dgrag/sim-cache"))
    parser.add_argument("--config", type=Path, help="the edge config the simulation ran with (it keys the cache)")
    parser.add_argument("--weights", default="0,0.1,0.2,0.4", help="query.memory_weight values")
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    config = load_config(EdgeConfig, args.config, environ={})
    cfg = CloudQueryConfig()
    cases, _ = collect(args.bench, args.cache_dir, config, cfg.probe_shortlist, [cfg.sparse_weight])
    random.Random(args.seed).shuffle(cases)
    print(machine_facts().markdown())
    print(f"\n{args.bench}: {len(cases)} answerable questions, {args.passes} passes, seed {args.seed}\n")
    print("| memory weight | pass | route hit@1 | route recall | edges asked | questions with a close memory |")
    print("|---|---|---|---|---|---|")
    for weight in [float(x) for x in args.weights.split(",") if x.strip()]:
        for r in replay(cases, weight, args.passes, cfg):
            print(
                f"| {r['weight']:g} | {r['pass']} | {r['route_hit@1']:.1%} | {r['route_recall']:.1%} | "
                f"{r['edges_asked']:.2f} | {r['with_memory']:.1%} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
