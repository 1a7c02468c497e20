"""A swarm run (``dgrag sim swarm``): what one cloud does at fleet size, measured on simulation.swarm's fleet.

The cloud is the real ``dgrag cloud serve`` process, with its summary index on disk. The edges are swarm edges
(simulation.swarm_edge): the real session and transport, each with its own credential, without models, spread
over a few worker processes. The run measures, in order:

1. cold start: from the first session to the cloud holding every summary (and what it embedded);
2. routing: stage 1 over every summary held, as the cloud runs it, timed on a copy of its index loaded from its
   store (the question's embedding excluded); and ``CheckEvidence`` from one edge timed at the caller (embedding,
   stage 1 and the probe shortlist, whose swarm edges answer at once); p50 and p95 of each;
3. an idle session's cost: loopback bytes per edge per hour while only heartbeats flow;
4. a restart: the cloud stopped and started on the same summary store; the time until it holds every summary
   again, what it embedded again, the summary messages and bytes the edges sent again, and sessions that did not
   come back.

Throughout, the cloud's RSS and CPU are sampled. The figures go to ``OUT/swarm.json``; progress is printed.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport.grpc_transport import auth_metadata
from simulation.processes import stop_all
from simulation.ray_backend import RayOptions, ray_backend
from simulation.servers import start_cloud
from simulation.swarm import ASKERS, Swarm, SwarmOptions, loopback_bytes
from simulation.swarm_pool import summary_pool
from simulation.swarm_real import end_to_end, start_real_edges


def routing_latency(swarm: Swarm, questions: Sequence[str]) -> dict[str, float]:
    """CheckEvidence from swarm edges (each question from the next of up to 20, within every edge's call budget),
    timed at the caller over channels already open: p50 and p95 in ms."""
    askers = swarm.ids[:ASKERS]
    channels = [swarm.channel(a) for a in askers]
    times = []
    try:
        for i, q in enumerate(questions):
            asker, stub = askers[i % len(askers)], cloud_pb2_grpc.CloudStub(channels[i % len(askers)])
            metadata = auth_metadata(asker, swarm.tokens[asker])
            began = time.perf_counter()
            stub.CheckEvidence(cloud_pb2.CheckEvidenceRequest(question=q, local_evidence=0.0), metadata=metadata)
            times.append(1000 * (time.perf_counter() - began))
    finally:
        for channel in channels:
            channel.close()
    return _median_and_p95(times) | {"n": len(times)}


def stage_one(store: Path, questions: Sequence[str]) -> dict[str, float]:
    """Stage 1 of routing as the cloud runs it (dense and sparse over every summary held, ranked by edge), timed in
    this process on a copy of the cloud's index loaded from its store: p50 and p95 in ms, the question's
    embedding excluded."""
    from shared.config import CloudQueryConfig, EmbedderConfig
    from shared.models.factory import build_embedder
    from simulation.cloud_parts import SummaryIndex, SummaryStore

    embedder = build_embedder(EmbedderConfig())
    index = SummaryIndex(embedder, SummaryStore(store, embedder.name, embedder.dim))
    cfg = CloudQueryConfig()
    vectors = embedder.embed(list(questions))
    times = []
    for question, vector in zip(questions, vectors, strict=True):
        began = time.perf_counter()
        index.search(vector, max(cfg.top_m, 8), cfg.edge_pool, question, cfg.sparse_weight)
        times.append(1000 * (time.perf_counter() - began))
    return _median_and_p95(times) | {"summaries": index.count()}


def _median_and_p95(times_ms: Sequence[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(times_ms), 2),
        "p95_ms": round(statistics.quantiles(times_ms, n=20)[18], 2),
    }


def idle_cost(swarm: Swarm) -> dict[str, float]:
    """Loopback bytes per edge per hour while only heartbeats flow (both directions, framing and TLS included)."""
    before, began = loopback_bytes(), time.perf_counter()
    time.sleep(swarm.opts.idle_s)
    seconds = time.perf_counter() - began
    per_edge_hour = (loopback_bytes() - before) / swarm.opts.edges * 3600 / seconds
    view = swarm.edges_view()
    late = max((time.time() - e.last_heartbeat for e in view), default=0.0)
    return {"bytes_per_edge_hour": round(per_edge_hour), "seconds": round(seconds, 1), "latest_heartbeat_s": late}


def run_swarm(opts: SwarmOptions, say: Callable[[str], None] = print) -> dict[str, Any]:
    if not opts.ray:
        return _run(Swarm(opts), say)
    with ray_backend(RayOptions(address=opts.ray_address), dict(os.environ)) as backend:
        return _run(Swarm(opts, backend), say)


def _run(swarm: Swarm, say: Callable[[str], None]) -> dict[str, Any]:
    opts = swarm.opts
    out: dict[str, Any] = {"options": {k: str(v) for k, v in asdict(opts).items()}}
    try:
        out["cloud_start_s"] = round(swarm.start_cloud(), 2)
        began = time.perf_counter()
        swarm.start_workers()
        if swarm.ray_workers is not None:
            out["ray"] = swarm.backend.describe() | {"worker_nodes": swarm.ray_workers.nodes}  # type: ignore[union-attr]
            say(f"workers on Ray nodes {sorted(set(swarm.ray_workers.nodes))}")
        held_s, embedded_s = swarm.wait_held("cold start", began)
        out["cold_start_s"], out["cold_embedded_s"] = round(held_s, 2), round(embedded_s, 2)
        out["embedded_cold"] = swarm.embedded()
        out["rss_after_cold_mb"] = round(swarm.sample.peak_rss_mb, 1)
        say("routing ...")
        questions = [" ".join(t.split()[:20]) for t in summary_pool()[: opts.questions]]
        out["routing_check_evidence"] = routing_latency(swarm, questions)
        out["routing_stage_one"] = stage_one(swarm.work / "summaries.sqlite3", questions)
        say("idle ...")
        out["idle"] = idle_cost(swarm)
        if opts.real_bench is not None:
            say("real edges ...")
            out["real_edges"] = real_questions(swarm, opts.real_bench, opts.real_questions)
        out |= restart(swarm, say)
        out["restarted_cloud_cpu_s"] = round(swarm.sample.cpu_s, 1)
    finally:
        swarm.stop()
    if "routing_stage_one" in out:
        say("routing on an idle machine ...")
        out["routing_stage_one_idle"] = stage_one(swarm.work / "summaries.sqlite3", questions)
    (opts.out / "swarm.json").write_text(json.dumps(out, indent=2), encoding="utf-8")
    return out


def real_questions(swarm: Swarm, bench: Path, count: int) -> dict[str, Any]:
    """The bundle's edges started among the swarm; ``count`` questions asked at them end to end."""
    servers = start_real_edges(swarm.work, bench, swarm.address, swarm.tokens, swarm.env)
    try:
        deadline = time.perf_counter() + swarm.opts.timeout_s
        while not all(e.summaries > 0 for e in swarm.edges_view() if e.edge_id in swarm.real_ids):
            if time.perf_counter() > deadline:
                raise SystemExit("the real edges' summaries did not reach the cloud in time")
            time.sleep(5.0)
        return {"edges": swarm.real_ids, **end_to_end(swarm.work, bench, servers, count)}
    finally:
        stop_all(servers)


def restart(swarm: Swarm, say: Callable[[str], None]) -> dict[str, Any]:
    """Stop the cloud, start it on the same store and port, and measure the way back."""
    kinds = ("summary_sync", "summary_delta")
    sent_before = swarm.sent(kinds)
    assert swarm.cloud is not None
    port = swarm._port()
    swarm.poll()
    first = {"cloud_peak_rss_mb": round(swarm.sample.peak_rss_mb, 1), "cloud_cpu_s": round(swarm.sample.cpu_s, 1)}
    swarm.cloud.stop()
    say("cloud stopped; starting again ...")
    began = time.perf_counter()
    swarm.cloud = start_cloud(swarm.work, None, swarm.env, swarm.bind, port=port)
    swarm.cloud.wait_ready()
    back, _ = swarm.wait_held("after restart", began)
    time.sleep(2.0)  # the workers write their counts every second
    messages, sent = (a - b for a, b in zip(swarm.sent(kinds), sent_before, strict=True))
    view = swarm.edges_view()
    return first | {
        "restart_s": round(back, 2),
        "embedded_after_restart": swarm.embedded(),
        "summary_messages_resent": messages,
        "summary_bytes_resent": sent,
        "sessions_lost": sum(1 for e in view if not e.connected and e.edge_id not in swarm.real_ids),
    }
