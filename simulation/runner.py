"""`dgrag sim run`: an N-edge experiment on real processes over loopback.

Index every edge of the bundle (cached), start a cloud and one edge process per edge (plus the central
store when asked), wait until every edge has published its summaries, ask every question per the
'Asked at' rule in each mode, then write answers.jsonl, report.json, report.md and the plots. Each ablation
(simulation.ablation_settings) gets a network of its own, started afresh with its settings, and is asked after.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import secrets
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from shared.config import CloudConfig, EdgeConfig
from shared.core.errors import DgragError
from shared.transport.grpc_transport import auth_metadata
from shared.transport.secret_file import write_secret
from simulation.ablation_settings import Ablation, ablations_of
from simulation.asking import Asker, EdgeEndpoint, Plan
from simulation.backends import BACKENDS, Backend, open_backend
from simulation.bundle import Question, asked_at, consistent_questions, load_edges, load_questions
from simulation.cloud_restart import restart_cloud
from simulation.credentials import write_api_tokens
from simulation.halves import Half, half_of
from simulation.hosts import start_hosts
from simulation.index_cache import CENTRAL
from simulation.indexing import (
    BuiltIndex,
    build_index,
    docs_by_edge,
    working_copy,
)
from simulation.liars import LIAR_KINDS, liar_command
from simulation.naive import naive_rows
from simulation.oracle import oracle_rows
from simulation.plain_rag import plain_rows
from simulation.processes import stop_all
from simulation.ray_backend import RayOptions
from simulation.report import NAIVE_MODE, ORACLE_MODE, PLAIN_MODE
from simulation.resume import PARTIAL_ANSWERS, code_digest, earlier_rows, open_for_append, settings_digest
from simulation.run_info import run_info
from simulation.servers import edge_launch, edge_trust, start_cloud, wait_synced

MODES = ("naive", "local", "dgrag", "central", "oracle", "plain")
"""The systems a simulation compares (shared.core.vocabulary names them)."""
SIM_USER = "sim-client"


@dataclass(frozen=True)
class SimOptions:
    bench: Path
    out: Path
    modes: tuple[str, ...] = MODES
    ablations: tuple[str, ...] = ()
    limit: int = 0
    edges: tuple[str, ...] = ()
    seed: int = 0
    cache_dir: Path = Path(".dgrag/sim-cache")
    edge_config: Path | None = None
    cloud_config: Path | None = None
    edges_per_host: int = 1
    """Edges served by one ``simulation.edge_host`` process (one SLM and embedder shared by them)."""
    backend: str = "local"
    """Where the hosts run: ``local`` processes or ``ray`` actors (see simulation.backends)."""
    liars: tuple[str, ...] = ()
    """Edges run as dishonest participants (simulation.liar_host), each in a host of its own."""
    liar_kind: str = "blunt"
    """How they lie (simulation.liar_host.KINDS: blunt, smart, echo, refuser, stuffer)."""
    restart_cloud: bool = False
    """Restart the cloud once every edge has synced and time its summary index becoming whole again."""
    ray: RayOptions = dataclasses.field(default_factory=RayOptions)
    half: Half | None = None
    """Ask only the questions of this half (simulation.halves; None: every question), before --limit samples."""


def _restarted(
    opts: SimOptions, servers: dict[str, Any], work: Path, env: dict[str, str], bind: str, admin: Any
) -> dict[str, float]:
    """The cloud restarted on its port, timed until it holds every edge's summaries again (simulation.cloud_restart)."""
    return restart_cloud(servers, lambda port: start_cloud(work, opts.cloud_config, env, bind, port), admin)


def sample_questions(bench: Path, limit: int, seed: int, half: Half | None = None) -> list[Any]:
    questions = load_questions(bench)
    if half is not None:
        questions = [q for q in questions if half_of(q.qid) == half]
    if limit and limit < len(questions):
        picked = set(random.Random(seed).sample(range(len(questions)), limit))
        questions = [q for i, q in enumerate(questions) if i in picked]
    return questions


def run(opts: SimOptions) -> dict[str, Any]:
    started = time.perf_counter()
    all_edges = load_edges(opts.bench)
    edges = _checked_edges(opts, all_edges)
    edge_config = _load(EdgeConfig, opts.edge_config)
    cloud_config = _load(CloudConfig, opts.cloud_config)
    rows_by_edge = docs_by_edge(opts.bench / "docs.jsonl")
    if empty := [e for e in edges if not rows_by_edge.get(e)]:
        raise DgragError(f"edge(s) {empty} have no documents in {opts.bench}/docs.jsonl; leave them out with --edges")
    asked = asked_at(_usable_questions(opts, all_edges, edges), edges)
    opts.out.mkdir(parents=True, exist_ok=True)
    work = opts.out / "run"
    work.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DGRAG__")}
    env["HF_HUB_OFFLINE"] = "1"

    built = {
        e: build_index(opts.bench, e, rows_by_edge.get(e, []), edge_config, opts.cache_dir, env, opts.edge_config)
        for e in edges
    }
    central = None
    if "central" in opts.modes:
        all_rows = [r for e in edges for r in rows_by_edge.get(e, [])]
        seeds = [b.data_dir for b in built.values()]
        central = build_index(opts.bench, CENTRAL, all_rows, edge_config, opts.cache_dir, env, opts.edge_config, seeds)

    tokens, api_tokens = _credentials(work, edges)
    servers: dict[str, Any] = {}
    resuming = (opts.out / PARTIAL_ANSWERS).is_file()  # a partial run of another setup stops before asking
    indexes = [*built.values(), *([central] if central else [])]
    setup = _setup(opts, edges, indexes, edge_config, cloud_config)
    with open_backend(opts.backend, opts.ray, env) as backend:
        try:
            _start_servers(opts, backend, work, env, servers, built, central, tokens, resuming)
            admin = auth_metadata(SIM_USER, tokens[SIM_USER])
            wait_synced(servers["cloud"].address, edges, admin)
            restarted = _restarted(opts, servers, work, env, backend.bind_host, admin) if opts.restart_cloud else None
            on = set(opts.modes)
            plan = Plan(local="local" in on, dgrag="dgrag" in on, central="central" in on)
            rows, resumed = _ask_all(opts, asked, plan, servers, edges, tokens[SIM_USER], api_tokens, setup)
            info = run_info(opts, servers, api_tokens, built, central, cloud_config, edge_config, edges)
            info["resumed_asks"] = resumed
            info["cloud_restart"] = restarted
            info["edge_trust"] = edge_trust(servers["cloud"].address, admin)
            info["backend"] = backend.describe()
        finally:
            stop_all(servers.values())
        for ablation in ablations_of(opts.ablations):
            more, resumed = _ablation_rows(opts, backend, ablation, env, built, asked, setup, resuming)
            rows += more
            info["resumed_asks"] += resumed
    # in this process, once the model processes of the network have stopped
    if NAIVE_MODE in opts.modes:
        rows += naive_rows(asked, built, edge_config)
    if ORACLE_MODE in opts.modes:
        rows += oracle_rows(asked, opts.bench, edge_config)
    if PLAIN_MODE in opts.modes:
        rows += plain_rows(asked, opts.bench, edge_config, cloud_config)
    info["wall_seconds"] = time.perf_counter() - started
    return _write(opts.out, rows, info)


def _credentials(work: Path, edges: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Fresh cloud tokens (the edges' and the simulation's admin) and edge API tokens, in files under ``work``."""
    tokens = {e: secrets.token_urlsafe(24) for e in [*edges, SIM_USER]}
    write_secret(
        (work / "tokens"), "".join(f"{'admin' if e == SIM_USER else 'edge'} {e} {t}\n" for e, t in tokens.items())
    )
    return tokens, write_api_tokens(work, [*edges, CENTRAL])


def _ablation_rows(
    opts: SimOptions,
    backend: Backend,
    ablation: Ablation,
    env: dict[str, str],
    built: dict[str, BuiltIndex],
    asked: list[Any],
    setup: dict[str, Any],
    resuming: bool,
) -> tuple[list[dict[str, Any]], int]:
    """DGRAG's rows with one part switched off: a network of its own (fresh copies of the indexes, a cloud with no
    memory of the other runs), started with the ablation's settings, asked every question, stopped."""
    work = opts.out / "run" / ablation.mode
    work.mkdir(parents=True, exist_ok=True)
    edges = list(built)
    tokens, api_tokens = _credentials(work, edges)
    servers: dict[str, Any] = {}
    try:
        _start_servers(opts, backend, work, env, servers, built, None, tokens, resuming, ablation)
        wait_synced(servers["cloud"].address, edges, auth_metadata(SIM_USER, tokens[SIM_USER]))
        plan = Plan(local=False, dgrag=True, central=False, dgrag_as=ablation.mode)
        return _ask_all(opts, asked, plan, servers, edges, tokens[SIM_USER], api_tokens, setup)
    finally:
        stop_all(servers.values())


def _start_servers(
    opts: SimOptions,
    backend: Backend,
    work: Path,
    env: dict[str, str],
    servers: dict[str, Any],
    built: dict[str, BuiltIndex],
    central: BuiltIndex | None,
    tokens: dict[str, str],
    resuming: bool,
    ablation: Ablation | None = None,
) -> None:
    """The cloud, then the edges (each on a private copy of its index) in hosts of ``opts.edges_per_host``, and
    the central store in a host of its own; all ready. ``ablation``: its network, with its settings (the copies
    in a directory of its own)."""
    cloud_env = {**env, **(ablation.cloud if ablation else {})}
    servers["cloud"] = start_cloud(work, opts.cloud_config, cloud_env, backend.bind_host)
    servers["cloud"].wait_ready()  # the edges need its port
    copies = opts.out / "ablations" / ablation.code if ablation else opts.out
    launches = [
        edge_launch(work, e, working_copy(index, copies, resuming), servers["cloud"].address, tokens[e])
        for e, index in built.items()
    ]
    if ablation is not None:
        launches = [dataclasses.replace(x, settings={**x.settings, **ablation.edge}) for x in launches]
    honest = [launch for launch in launches if launch.edge_id not in opts.liars]
    hosts, endpoints = backend.start_hosts(work, honest, opts.edges_per_host, opts.edge_config, "host")
    if liars := [launch for launch in launches if launch.edge_id in opts.liars]:
        lying_hosts, lying = start_hosts(
            work, liars, 1, opts.edge_config, env, "liar", liar_command(work, opts.liar_kind, opts.bench, opts.liars)
        )
        hosts += lying_hosts
        endpoints.update(lying)
    if central is not None:  # the all-documents baseline: a host of its own
        only = [edge_launch(work, CENTRAL, working_copy(central, opts.out, resuming), "", "")]
        central_hosts, central_endpoint = backend.start_hosts(work, only, 1, opts.edge_config, "central")
        hosts += central_hosts
        endpoints.update(central_endpoint)
    servers.update({f"host:{h.name}": h for h in hosts})
    servers.update(endpoints)
    for server in servers.values():
        server.wait_ready()


def _load(cls: Any, path: Path | None) -> Any:
    from shared.config import load_config

    return load_config(cls, path, environ={})


def _checked_edges(opts: SimOptions, all_edges: list[str]) -> list[str]:
    """The edges to run, after checking every option a run could otherwise fail on late."""
    if not opts.modes and not opts.ablations:
        raise DgragError(f"no modes to run; pass --modes with some of {', '.join(MODES)}")
    for mode in opts.modes:
        if mode not in MODES:
            raise DgragError(f"unknown mode {mode!r}; use some of {', '.join(MODES)}")
    ablations_of(opts.ablations)  # refuses an unknown or repeated code, naming it
    if opts.backend not in BACKENDS:
        raise DgragError(f"unknown backend {opts.backend!r}; use one of {', '.join(BACKENDS)}")
    if opts.backend != "ray" and opts.ray != RayOptions():
        raise DgragError("--ray-address and the --ray-* resources need --backend ray")
    opts.ray.check()
    if opts.limit < 0:
        raise DgragError(f"--limit {opts.limit} is negative; pass 0 (every question) or a positive sample size")
    if twice := sorted({e for e in opts.edges if opts.edges.count(e) > 1}):
        raise DgragError(f"--edges names {', '.join(twice)} more than once")
    edges = list(opts.edges) or all_edges
    if unknown := sorted(set(edges) - set(all_edges)):
        raise DgragError(f"edge(s) {unknown} are not in {opts.bench}/edges.json; it has {all_edges}")
    if not_run := sorted(set(opts.liars) - set(edges)):
        raise DgragError(f"--liar names {not_run}, which this run does not start; pick from {edges}")
    if opts.liar_kind not in LIAR_KINDS:
        raise DgragError(f"--liar-kind {opts.liar_kind!r} is not one of {', '.join(LIAR_KINDS)}")
    if opts.liars and opts.backend != "local":
        raise DgragError("--liar runs with --backend local only")
    return edges


def _usable_questions(opts: SimOptions, all_edges: list[str], edges: list[str]) -> list[Question]:
    """The sampled questions this run can score; says which are left out and why."""
    questions, inconsistent = consistent_questions(
        sample_questions(opts.bench, opts.limit, opts.seed, opts.half), all_edges
    )
    if inconsistent:
        print(
            f"dgrag sim: leaving out {len(inconsistent)} question(s) with an answer but no home edge, which no "
            f"edge could answer and no reply could match ({', '.join(q.qid for q in inconsistent[:10])}); "
            f"fix them in {opts.bench}/questions.jsonl",
            file=sys.stderr,
        )
    homeless = [q for q in questions if q.answerable and not set(q.home_edges) & set(edges)]
    if homeless:  # asked_at leaves them out
        print(
            f"dgrag sim: {len(homeless)} question(s) have no home edge among --edges {','.join(edges)} "
            "and are not asked",
            file=sys.stderr,
        )
    return questions


def _setup(
    opts: SimOptions, edges: list[str], indexes: list[BuiltIndex], edge_config: EdgeConfig, cloud_config: CloudConfig
) -> dict[str, Any]:
    """What the answers of a run depend on: a partial run is resumed only when this is unchanged."""
    return {
        "bench": str(opts.bench.resolve()),
        "modes": list(opts.modes),
        "ablations": list(opts.ablations),
        "limit": opts.limit,
        "half": opts.half.name.lower() if opts.half is not None else "all",
        "seed": opts.seed,
        "edges": edges,
        "indexes": sorted(index.data_dir.name for index in indexes),
        "code": code_digest(),
        "settings": settings_digest(edge_config, cloud_config),
    }


def _ask_all(
    opts: SimOptions,
    asked: list[Any],
    plan: Plan,
    servers: dict[str, Any],
    edges: list[str],
    token: str,
    api_tokens: dict[str, str],
    setup: dict[str, Any],
) -> tuple[list[dict[str, Any]], int]:
    """Every row of ``plan``'s modes, and how many asks were taken from an interrupted earlier run (see
    simulation.resume)."""
    if not plan.modes():  # a run of ablations alone asks nothing of the first network
        return [], 0
    central = servers[CENTRAL].address if CENTRAL in servers else None
    earlier = earlier_rows(opts.out, setup, plan.modes())
    reused = [a for a in asked if (a.question.qid, a.edge) in earlier]
    if reused:
        print(
            f"dgrag sim: resuming {opts.out}: {len(reused)} of {len(asked)} asks were answered by an interrupted "
            f"run (delete {opts.out / PARTIAL_ANSWERS} to start over)",
            file=sys.stderr,
        )
    asker = Asker(
        {e: EdgeEndpoint(servers[e].address, api_tokens[e]) for e in edges},
        EdgeEndpoint(central, api_tokens[CENTRAL]) if central else None,
        servers["cloud"].address,
        SIM_USER,
        token,
    )
    rows: list[dict[str, Any]] = []
    try:
        with open_for_append(opts.out / PARTIAL_ANSWERS) as partial:
            for item in tqdm(asked, desc="questions", unit="q", file=sys.stderr, dynamic_ncols=True):
                if (key := (item.question.qid, item.edge)) in earlier:
                    rows.extend(earlier[key])
                    continue
                for row in asker.ask(item, plan):
                    rows.append(row)
                    partial.write(json.dumps(row) + "\n")
                partial.flush()
    finally:
        asker.close()
    return rows, len(reused)


def _write(out: Path, rows: list[dict[str, Any]], info: dict[str, Any]) -> dict[str, Any]:
    from simulation.judge_run import JUDGMENTS_FILE, PARTIAL_FILE
    from simulation.plots import JUDGE_PNG
    from simulation.report_files import MARKDOWN_FILE, REPORT_FILE, RUN_INFO_FILE, publish_report

    # The run facts and the rows go to disk before the report is built, and the partial answers are dropped only
    # after it is saved: a failure while reporting loses nothing (`dgrag sim report` rebuilds from these files).
    for earlier in (REPORT_FILE, MARKDOWN_FILE):  # an earlier run's report must not pass for this one's
        (out / earlier).unlink(missing_ok=True)
    (out / RUN_INFO_FILE).write_text(json.dumps(info, indent=2), encoding="utf-8")
    for stale in (JUDGMENTS_FILE, PARTIAL_FILE, JUDGE_PNG):  # an earlier run's judging does not judge these answers
        (out / stale).unlink(missing_ok=True)
    report = publish_report(out, out / "answers.jsonl", rows, info)  # resumed rows may come from an older metric
    (out / PARTIAL_ANSWERS).unlink(missing_ok=True)
    return report
