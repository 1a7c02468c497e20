"""Benchmark: the edge's answer generation under each OpenMP wait setting, with the embedder and the SLM on
threads of their own as an edge host runs them (shared.models.pool: one worker thread per model).

    python -m benchmarks.omp_teams --bench simulation/bundles/multihop4 [--limit 12] [--half fit]

Each OpenMP team belongs to the thread that starts it, so such a process holds two teams in one libgomp, more
threads than a 2-core machine has cores; libgomp then throttles a waiting thread's spins (to 100 unless the
policy is ACTIVE) and llama.cpp's threads sleep at the barriers of every decode step. Each setting runs in a
fresh process (OpenMP reads its environment once, when it loads): the first question warms the model, then each
question embeds a query on the embedder's thread and generates the edge's answer request (gold evidence as
context, as benchmarks.batched_samples builds it) on the SLM's thread. Printed per setting: seconds of the
generations in all, p50 per question, and the process's voluntary context switches per second (threads going
to sleep). Run it with nothing else on the machine: every figure is a clock.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from shared.models.cpu import SHORT_SPIN_COUNT, WAIT_ENV, wait_environment
from simulation.machine import machine_facts

SETTINGS: dict[str, dict[str, str]] = {
    "short (dgrag's default)": wait_environment("short"),
    "spin count alone": {"GOMP_SPINCOUNT": str(SHORT_SPIN_COUNT)},
    "passive": wait_environment("passive"),
}
"""The environments compared: dgrag's default, the default before it (spin count only), and PASSIVE."""


def child(bench: Path, limit: int, half: str) -> dict[str, float]:
    """Run in the child process: the generations' seconds and the context switches per second."""
    from benchmarks.batched_samples import requests
    from shared.config import EdgeConfig
    from shared.models.factory import build_embedder, build_generator
    from shared.models.pool import ModelPool

    config = EdgeConfig()
    wanted = requests(bench, config, limit + 1, half)
    pool = ModelPool(build_generator(config.slm), build_embedder(config.embedder))
    generator, embedder = pool.for_edge("bench")
    try:
        generator.generate(wanted[0])
        seconds: list[float] = []
        switches = resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw
        for request in wanted[1:]:
            embedder.embed([request.prompt[-300:]])  # the query embedding a question costs before it is answered
            started = time.perf_counter()
            generator.generate(request)
            seconds.append(time.perf_counter() - started)
        switched = resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw - switches
    finally:
        pool.close()
    return {"total": sum(seconds), "p50": statistics.median(seconds), "switches": switched / sum(seconds)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, required=True, help="a bundle directory (documents + questions)")
    parser.add_argument("--limit", type=int, default=12, help="questions timed per setting (after one warm-up)")
    parser.add_argument("--half", default="fit", help="which half of the questions: fit, report or all")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.limit < 1:
        parser.error(f"--limit {args.limit}: give at least 1 question")
    if args.child:
        print(json.dumps(child(args.bench, args.limit, args.half)))
        return 0
    base = {k: v for k, v in os.environ.items() if k not in WAIT_ENV}
    print(f"{args.limit} questions of {args.bench.name} ({args.half} half), embedder and SLM on two threads\n")
    print("| OpenMP setting | environment | generations in all | p50 per question | voluntary switches / s |")
    print("|---|---|---:|---:|---:|")
    for name, env in SETTINGS.items():
        command = [sys.executable, "-m", "benchmarks.omp_teams", "--child", "--bench", str(args.bench)]
        command += ["--limit", str(args.limit), "--half", args.half]
        done = subprocess.run(command, env=base | env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(f"omp_teams: the {name} run failed:\n{done.stderr[-2000:]}", file=sys.stderr)
            return 1
        got = json.loads(done.stdout.strip().splitlines()[-1])
        shown = " ".join(f"{k}={v}" for k, v in env.items() if k in WAIT_ENV and k != "DGRAG_WAIT_POLICY")
        print(f"| {name} | {shown} | {got['total']:.1f} s | {got['p50']:.2f} s | {got['switches']:,.0f} |")
    print("\n" + machine_facts().markdown())  # this process set no OpenMP environment: it runs no model
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
