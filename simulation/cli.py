"""``dgrag sim run``: N-edge experiments on real processes (see simulation/runner.py)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shared.cli.exit_codes import EXIT_INTERRUPTED
from simulation.processes import sigterm_as_interrupt
from simulation.split import SPLIT_KEYS, split_bundle

if TYPE_CHECKING:
    from simulation.judge import Pair
    from simulation.judge_config import JudgeConfig


def register(roles: Any) -> None:
    sim = roles.add_parser("sim", help="run N-edge experiments on real processes over loopback")
    commands = sim.add_subparsers(dest="command", required=True)
    _run_parser(commands)
    _split_scale_parsers(commands)
    _report_judge_parsers(commands)


def _run_parser(commands: Any) -> None:
    p = commands.add_parser("run", help="index, start a cloud and the edges, ask every question, write a report")
    p.add_argument(
        "--bench", type=Path, required=True, help="bundle directory (edges.json, docs.jsonl, questions.jsonl)"
    )
    p.add_argument(
        "--out", type=Path, required=True, help="output directory (report.json, report.md, answers.jsonl, PNGs)"
    )
    p.add_argument(
        "--modes",
        default="plain,local,dgrag",
        help="comma-separated: naive, local, dgrag, central, oracle (gold evidence, read by the edge's reader), plain"
        " (all documents in one index, the cloud's model: the bar to clear)",
    )
    p.add_argument(
        "--ablate",
        default="",
        help="comma-separated ablations, each on a network of its own: cd, se, bq (the paper's); sp, pr, rm, gc",
    )
    p.add_argument("--limit", type=int, default=0, help="a deterministic sample of N questions (0 = all)")
    p.add_argument("--edges", default="", help="comma-separated subset of the bundle's edges (default: all)")
    p.add_argument("--seed", type=int, default=0, help="seed of the --limit sample")
    p.add_argument(
        "--half", default="all", help="ask only the fit or the report half of the questions (simulation/halves.py)"
    )
    p.add_argument("--cache-dir", type=Path, default=Path(".dgrag/sim-cache"), help="where indexes are cached")
    p.add_argument("--config", type=Path, help="edge config TOML (models, construction, retrieval, gate)")
    p.add_argument("--cloud-config", type=Path, help="cloud config TOML (cloud LLM, top-m, top-k, deadline)")
    p.add_argument("--judge-config", type=Path, help="judge config TOML: when given, judge the answers after the run")
    p.add_argument("--judge-pairs", default="", help="mode pairs to judge, e.g. dgrag:naive (default: dgrag vs each)")
    p.add_argument(
        "--edges-per-host", type=int, default=1, help="edges per edge host process sharing one SLM (default 1)"
    )
    p.add_argument("--liar", default="", help="comma-separated edges run as dishonest participants (a trust test)")
    p.add_argument(
        "--liar-kind",
        default="blunt",
        help="how the --liar edges lie: blunt (every claim 1.0), smart (only what the cloud cannot re-measure), echo"
        " (the question returned as a chunk), refuser (probes refused, routed by summaries) or stuffer (the refuser"
        " with the names other edges mention most added to its summaries); default blunt",
    )
    p.add_argument(
        "--restart-cloud",
        action="store_true",
        help="restart the cloud once every edge has synced and time until it holds all their summaries again",
    )
    _backend_arguments(p)
    p.set_defaults(func=cmd_run)


def _split_scale_parsers(commands: Any) -> None:
    s = commands.add_parser("split", help="derive an N-edge bundle from a bundle (by source, time, topic or random)")
    s.add_argument("--bench", type=Path, required=True, help="the bundle to split")
    s.add_argument("--edges", type=int, required=True, help="how many edges the new bundle has")
    s.add_argument("--by", choices=SPLIT_KEYS, default="source", help="what keeps documents together on an edge")
    s.add_argument("--out", type=Path, required=True, help="a new directory for the bundle")
    s.add_argument("--seed", type=int, default=0, help="orders documents within one key")
    s.set_defaults(func=cmd_split)

    c = commands.add_parser("scale", help="one bundle split to several edge counts, run, and one report against N")
    c.add_argument("--bench", type=Path, required=True, help="the bundle to split")
    c.add_argument("--edges", required=True, help="comma-separated edge counts, e.g. 4,16,64")
    c.add_argument("--by", choices=SPLIT_KEYS, default="source", help="what keeps documents together on an edge")
    c.add_argument("--out", type=Path, required=True, help="bundles/N, runs/N and scale.json/.md/.png go here")
    c.add_argument("--modes", default="dgrag", help="comma-separated modes of every run (default dgrag)")
    c.add_argument("--limit", type=int, default=0, help="a deterministic sample of N questions per run (0 = all)")
    c.add_argument("--seed", type=int, default=0, help="seed of the split and the sample")
    c.add_argument("--edges-per-host", type=int, default=16, help="edges per host process (default 16)")
    c.add_argument("--cache-dir", type=Path, default=Path(".dgrag/sim-cache"), help="where indexes are cached")
    c.add_argument("--config", type=Path, help="edge config TOML")
    c.add_argument("--cloud-config", type=Path, help="cloud config TOML")
    _backend_arguments(c)
    c.set_defaults(func=cmd_scale)

    w = commands.add_parser("swarm", help="many model-free edge sessions against one real cloud: fleet-size figures")
    w.add_argument("--edges", type=int, required=True, help="edge sessions, e.g. 10000")
    w.add_argument("--summaries-per-edge", type=int, default=5, help="summaries each edge publishes (default 5)")
    w.add_argument("--workers", type=int, default=4, help="processes the sessions are spread over (default 4)")
    w.add_argument("--out", type=Path, required=True, help="swarm.json and the run's files go here")
    w.add_argument("--heartbeat", type=float, default=10.0, help="seconds between heartbeats (the cloud's default)")
    w.add_argument("--idle", type=float, default=60.0, help="seconds of idle sessions measured (default 60)")
    w.add_argument("--questions", type=int, default=200, help="questions routed for the latency (default 200)")
    w.add_argument("--tls", action="store_true", help="mutual TLS: a client certificate for every edge")
    w.add_argument("--real-bench", type=Path, help="a bundle whose edges join as real edges, asked end to end")
    w.add_argument("--real-questions", type=int, default=5, help="questions asked at the real edges (default 5)")
    w.add_argument("--timeout", type=float, default=1800.0, help="seconds allowed for each wait (default 1800)")
    w.add_argument("--ray", action="store_true", help="the workers as Ray actors, spread over a cluster's nodes")
    w.add_argument("--ray-address", default="", help="join this Ray cluster (HEAD:PORT or auto; default: start one)")
    w.add_argument("--ray-worker-cpus", type=float, default=0.5, help="CPUs each worker declares (default 0.5)")
    w.set_defaults(func=cmd_swarm)


def _report_judge_parsers(commands: Any) -> None:
    r = commands.add_parser(
        "report", help="recompute a finished run's report.json, report.md and plots from its answers.jsonl"
    )
    r.add_argument("--run", type=Path, required=True, help="the --out directory of a finished `dgrag sim run`")
    r.set_defaults(func=cmd_report)
    j = commands.add_parser("judge", help="LLM-judge win rates between the modes of a finished run")
    j.add_argument("--run", type=Path, required=True, help="the --out directory of a finished `dgrag sim run`")
    j.add_argument("--judge-config", type=Path, help="judge config TOML ([llm] section; default: openai endpoint)")
    j.add_argument("--pairs", default="", help="mode pairs, e.g. dgrag:naive,dgrag:central (default: dgrag vs each)")
    j.add_argument("--limit", type=int, default=0, help="judge only the first N asks of each pair (0 = all)")
    j.set_defaults(func=cmd_judge)


def _backend_arguments(p: argparse.ArgumentParser) -> None:
    from simulation.backends import BACKENDS
    from simulation.ray_backend import RayOptions

    default = RayOptions()
    p.add_argument("--backend", choices=BACKENDS, default="local", help="hosts as local processes or Ray actors")
    p.add_argument("--ray-address", default="", help="join this Ray cluster (HEAD:PORT or auto; default: start one)")
    p.add_argument(
        "--ray-edge-cpus", type=float, default=default.edge_cpus, help="CPUs each edge declares to Ray (default 1/32)"
    )
    p.add_argument(
        "--ray-edge-memory-mb", type=int, default=default.edge_memory_mb, help="memory each edge declares to Ray"
    )
    p.add_argument(
        "--ray-host-memory-mb", type=int, default=default.host_memory_mb, help="memory each host declares (models)"
    )


def _backend_options(args: argparse.Namespace) -> dict[str, Any]:
    """The SimOptions fields of the backend arguments."""
    from simulation.ray_backend import RayOptions

    ray = RayOptions(args.ray_address, args.ray_edge_cpus, args.ray_edge_memory_mb, args.ray_host_memory_mb)
    return {"backend": args.backend, "ray": ray}


def _split(text: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in text.split(",") if x.strip())


def cmd_split(args: argparse.Namespace) -> int:
    report = split_bundle(args.bench, args.edges, args.by, args.out, args.seed)
    print(
        f"wrote {report.out}: {report.edges} edges, {report.documents} documents, {report.questions} questions"
        f" ({report.answerable} answerable, {report.cross_edge} with evidence on several edges)"
    )
    return 0


def cmd_scale(args: argparse.Namespace) -> int:
    from shared.core.errors import DgragError
    from simulation.runner import SimOptions
    from simulation.scale import SCALE_MD, scale

    try:
        counts = [int(x) for x in _split(args.edges)]
    except ValueError as exc:
        raise DgragError(f"--edges {args.edges!r}: give comma-separated edge counts, e.g. 4,16,64") from exc
    options = SimOptions(
        bench=args.bench,
        out=args.out,
        modes=_split(args.modes),
        limit=args.limit,
        seed=args.seed,
        cache_dir=args.cache_dir,
        edge_config=args.config,
        cloud_config=args.cloud_config,
        edges_per_host=args.edges_per_host,
        **_backend_options(args),
    )
    with sigterm_as_interrupt():
        scale(args.bench, counts, args.by, args.out, options, args.seed)
    print((args.out / SCALE_MD).read_text(encoding="utf-8"))
    return 0


def cmd_swarm(args: argparse.Namespace) -> int:
    from simulation.swarm import SwarmOptions
    from simulation.swarm_run import run_swarm

    opts = SwarmOptions(
        args.edges,
        args.summaries_per_edge,
        args.workers,
        args.out,
        args.heartbeat,
        args.idle,
        args.questions,
        tls=args.tls,
        real_bench=args.real_bench,
        real_questions=args.real_questions,
        timeout_s=args.timeout,
        ray=args.ray or bool(args.ray_address),
        ray_address=args.ray_address,
        ray_worker_cpus=args.ray_worker_cpus,
    )
    with sigterm_as_interrupt():
        result = run_swarm(opts)
    print(json.dumps(result, indent=2))
    return 0


def _half(text: str) -> Any:
    from shared.core.errors import DgragError
    from simulation.halves import parse_half

    try:
        return parse_half(text)
    except ValueError as exc:
        raise DgragError(f"--half: {exc}") from None


def cmd_run(args: argparse.Namespace) -> int:
    from shared.core.errors import DgragError
    from simulation.ablation_settings import ablation_mode
    from simulation.runner import SimOptions, run

    modes, ablations = _split(args.modes), _split(args.ablate)
    judging = None
    if args.judge_config is not None:
        # Checked before the run: a bad judge setting should not surface after an hour of asking.
        judging = _judge_plan(args.judge_config, args.judge_pairs, [*modes, *map(ablation_mode, ablations)])
    elif args.judge_pairs:
        raise DgragError("--judge-pairs needs --judge-config (the judge model)")
    options = SimOptions(
        bench=args.bench,
        out=args.out,
        modes=modes,
        ablations=ablations,
        limit=args.limit,
        edges=_split(args.edges),
        seed=args.seed,
        cache_dir=args.cache_dir,
        edge_config=args.config,
        cloud_config=args.cloud_config,
        edges_per_host=args.edges_per_host,
        liars=_split(args.liar),
        liar_kind=args.liar_kind,
        restart_cloud=args.restart_cloud,
        half=_half(args.half),
        **_backend_options(args),
    )
    try:
        with sigterm_as_interrupt():
            report = run(options)
    except KeyboardInterrupt:
        print(
            f"dgrag sim: interrupted; the servers are stopped and the asks answered so far are kept in {args.out}. "
            "Run the same command again to resume.",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    print(f"wrote {args.out}/report.md, report.json, answers.jsonl and plots")
    for mode, data in report.get("modes", {}).items():
        acc = data.get("accuracy", {})
        print(f"  {mode}: accuracy all={acc.get('all')} within={acc.get('within')} out={acc.get('out')}")
    if judging is not None:
        try:
            return _judge(args.out, *judging, limit=0)
        except DgragError as exc:
            raise DgragError(f"the run finished and its report is in {args.out}, but judging failed: {exc}") from exc
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from simulation.report_files import rebuild_report

    report = rebuild_report(args.run)
    rows = sum(data["n"]["all"] for data in report["modes"].values())
    print(f"rewrote {args.run}/report.json, report.md and plots from {rows} answer rows")
    return 0


def cmd_judge(args: argparse.Namespace) -> int:
    from simulation.report_files import read_report

    modes = list(read_report(args.run).get("modes", {}))
    return _judge(args.run, *_judge_plan(args.judge_config, args.pairs, modes), limit=args.limit)


def _judge_plan(config_file: Path | None, pairs_text: str, modes: list[str]) -> tuple[JudgeConfig, list[Pair]]:
    """The judge config and the pairs to judge, checked against the modes the run has (or will have)."""
    from shared.config import load_config
    from simulation.judge import check_pairs, default_pairs, parse_pairs
    from simulation.judge_config import JudgeConfig

    config = load_config(JudgeConfig, config_file, environ={})
    pairs = parse_pairs(pairs_text) if pairs_text else default_pairs(modes)
    check_pairs(pairs, modes)
    return config, pairs


def _judge(run_dir: Path, config: JudgeConfig, pairs: list[Pair], limit: int) -> int:
    from shared.models.factory import build_generator
    from simulation.judge_run import judge_run

    generator = build_generator(config.llm)
    try:
        with sigterm_as_interrupt():
            result = judge_run(run_dir, pairs, config, generator, limit)
    except KeyboardInterrupt:
        print(
            f"dgrag sim: judging interrupted; the verdicts so far are kept in {run_dir}. "
            "Run the same judge command again to go on.",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    finally:
        generator.close()
    print(f"judged with {result['model']}; wrote {run_dir}/judgments.jsonl and the win rates into report.md")
    for label, data in result["pairs"].items():
        rates = ", ".join(f"{c}={v['win_rate']}" for c, v in data["criteria"].items())
        print(f"  {label}: {data['asks']} asks judged ({data['identical']} identical); {rates}")
    return 0
