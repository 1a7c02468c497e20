"""``dgrag sim run``: N-edge experiments on real processes (see simulation/runner.py)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(roles: Any) -> None:
    sim = roles.add_parser("sim", help="run N-edge experiments on real processes over loopback")
    commands = sim.add_subparsers(dest="command", required=True)
    p = commands.add_parser("run", help="index, start a cloud and the edges, ask every question, write a report")
    p.add_argument(
        "--bench", type=Path, required=True, help="bundle directory (edges.json, docs.jsonl, questions.jsonl)"
    )
    p.add_argument(
        "--out", type=Path, required=True, help="output directory (report.json, report.md, answers.jsonl, PNGs)"
    )
    p.add_argument("--modes", default="naive,local,dgrag,central", help="comma-separated: naive, local, dgrag, central")
    p.add_argument("--ablate", default="", help="comma-separated ablations of dgrag: cd, se, bq, kg")
    p.add_argument("--limit", type=int, default=0, help="a deterministic sample of N questions (0 = all)")
    p.add_argument("--edges", default="", help="comma-separated subset of the bundle's edges (default: all)")
    p.add_argument("--seed", type=int, default=0, help="seed of the --limit sample")
    p.add_argument("--cache-dir", type=Path, default=Path(".dgrag/sim-cache"), help="where indexes are cached")
    p.add_argument("--config", type=Path, help="edge config TOML (models, construction, retrieval, gate)")
    p.add_argument("--cloud-config", type=Path, help="cloud config TOML (cloud LLM, top-m, top-k, deadline)")
    p.set_defaults(func=cmd_run)


def _split(text: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in text.split(",") if x.strip())


def cmd_run(args: argparse.Namespace) -> int:
    from simulation.runner import SimOptions, run

    report = run(
        SimOptions(
            bench=args.bench,
            out=args.out,
            modes=_split(args.modes),
            ablations=_split(args.ablate),
            limit=args.limit,
            edges=_split(args.edges),
            seed=args.seed,
            cache_dir=args.cache_dir,
            edge_config=args.config,
            cloud_config=args.cloud_config,
        )
    )
    print(f"wrote {args.out}/report.md, report.json, answers.jsonl and plots")
    for mode, data in report.get("modes", {}).items():
        acc = data.get("accuracy", {})
        print(f"  {mode}: accuracy all={acc.get('all')} within={acc.get('within')} out={acc.get('out')}")
    return 0
