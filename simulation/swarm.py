"""A swarm of edge sessions against one real cloud (``dgrag sim swarm``): what one cloud does at fleet size.

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
import secrets
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import grpc

from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport.certs import make_certs
from shared.transport.grpc_transport import auth_metadata
from shared.transport.secret_file import write_secret
from simulation.bundle import load_edges
from simulation.processes import Server, stop_all
from simulation.ray_backend import RayBackend, RayOptions, ray_backend
from simulation.servers import start_cloud
from simulation.swarm_pool import summary_pool, varied
from simulation.swarm_ray import RayWorkers
from simulation.swarm_real import end_to_end, start_real_edges

ADMIN = "ops"
ASKERS = 20
"""Edges whose credentials ask the routing questions in turn."""


@dataclass(frozen=True)
class SwarmOptions:
    edges: int
    summaries_per_edge: int
    workers: int
    out: Path
    heartbeat_s: float = 10.0
    idle_s: float = 60.0
    questions: int = 200
    timeout_s: float = 900.0
    tls: bool = False
    """Mutual TLS: a CA, the cloud's certificate and one client certificate per edge (and the operator)."""
    real_bench: Path | None = None
    """A bundle whose edges join the swarm as real edges with models (simulation.swarm_real)."""
    real_questions: int = 5
    ray: bool = False
    """The workers as Ray actors (simulation.swarm_ray), on a Ray started for the run or on ``ray_address``."""
    ray_address: str = ""
    """A running Ray cluster to join (``HEAD:PORT`` or ``auto``); empty = start a Ray on this machine."""
    ray_worker_cpus: float = 0.5
    """CPUs each worker actor declares to Ray's scheduler."""


@dataclass
class CloudSample:
    """The cloud process's peak RSS and CPU seconds so far."""

    peak_rss_mb: float = 0.0
    cpu_s: float = 0.0


def _proc(pid: int) -> tuple[float, float]:
    """RSS in MB and CPU seconds (user + system) of process ``pid``."""
    rss = 0.0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) / 1024
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return rss, (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _loopback_bytes() -> int:
    for line in Path("/proc/net/dev").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name.strip() == "lo":
            return int(rest.split()[0])
    return 0


class Swarm:
    """The cloud and the workers of one run."""

    def __init__(self, opts: SwarmOptions, backend: RayBackend | None = None) -> None:
        self.opts = opts
        self.backend = backend
        self.bind = backend.bind_host if backend is not None else "127.0.0.1"
        """Where the cloud listens: loopback, or this node's address when workers run on a Ray cluster."""
        self.work = opts.out / "work"
        self.work.mkdir(parents=True, exist_ok=True)
        self.ids = [f"swarm-{i:05d}" for i in range(opts.edges)]
        self.real_ids = load_edges(opts.real_bench) if opts.real_bench is not None else []
        self.tokens = {e: secrets.token_urlsafe(18) for e in [*self.ids, *self.real_ids, ADMIN]}
        lines = [f"{'admin' if e == ADMIN else 'edge'} {e} {t}\n" for e, t in self.tokens.items()]
        write_secret(self.work / "tokens", "".join(lines))
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("DGRAG__")} | {
            "HF_HUB_OFFLINE": "1",
            "DGRAG__SUMMARY_STORE": str(self.work / "summaries.sqlite3"),
            "DGRAG__HEARTBEAT_INTERVAL_S": str(opts.heartbeat_s),
            "DGRAG__MAX_CONCURRENT_RPCS": str(opts.edges + 1024),
            "DGRAG__METRICS_PORT": str(free_port()),
        }
        hosts = sorted({"127.0.0.1", "localhost", self.bind})
        self.certs = make_certs(self.work / "tls", hosts, [*self.ids, ADMIN]) if opts.tls else None
        if self.certs is not None:
            self.env |= {
                "DGRAG__TLS_CERT": str(self.certs.cloud_cert),
                "DGRAG__TLS_KEY": str(self.certs.cloud_key),
                "DGRAG__TLS_CLIENT_CA": str(self.certs.ca),
            }
        self.cloud: Server | None = None
        self.workers: list[subprocess.Popen[bytes]] = []
        self.ray_workers: RayWorkers | None = None
        self.sample = CloudSample()

    def start_cloud(self) -> float:
        """Start the cloud; the seconds it took to serve."""
        began = time.perf_counter()
        self.cloud = start_cloud(self.work, None, self.env, self.bind, port=self._port())
        self.cloud.wait_ready()
        return time.perf_counter() - began

    def _port(self) -> int:
        return self.cloud.port if self.cloud is not None else 0

    def start_workers(self) -> None:
        specs = self._specs()
        if self.backend is not None:
            self.ray_workers = RayWorkers(self.backend, specs, self.opts.ray_worker_cpus)
            return
        for w, spec in enumerate(specs):
            path = self.work / f"worker-{w}.spec.json"
            path.write_text(json.dumps(spec), encoding="utf-8")
            log = (self.work / f"worker-{w}.log").open("wb")
            cmd = [sys.executable, "-m", "simulation.swarm_worker", str(path)]
            self.workers.append(subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=self.env))

    def _specs(self) -> list[dict[str, Any]]:
        pool = summary_pool()
        per = -(-len(self.ids) // self.opts.workers)
        specs = []
        for w in range(self.opts.workers):
            mine = self.ids[w * per : (w + 1) * per]
            edges = [
                {"id": e, "token": self.tokens[e], "texts": varied(pool, int(e[6:]), self.opts.summaries_per_edge)}
                | self._client_files(e)
                for e in mine
            ]
            spec = {
                "cloud": self.address,
                "heartbeat_s": self.opts.heartbeat_s,
                "backoff_initial_s": 0.5,
                "backoff_max_s": 30.0,
                "status": str(self.work / f"worker-{w}.json"),
                "tls": {"ca": str(self.certs.ca)} if self.certs is not None else None,
                "edges": edges,
            }
            specs.append(spec)
        return specs

    def _client_files(self, client: str) -> dict[str, str]:
        if self.certs is None:
            return {}
        cert, key = self.certs.clients[client]
        return {"cert": str(cert), "key": str(key)}

    def channel(self, client: str) -> grpc.Channel:
        """A channel as ``client`` (with its certificate under mutual TLS)."""
        options = [("grpc.max_receive_message_length", 64 << 20)]
        if self.certs is None:
            return grpc.insecure_channel(self.address, options=options)
        cert, key = self.certs.clients[client]
        credentials = grpc.ssl_channel_credentials(self.certs.ca.read_bytes(), key.read_bytes(), cert.read_bytes())
        return grpc.secure_channel(self.address, credentials, options=options)

    @property
    def address(self) -> str:
        assert self.cloud is not None
        return self.cloud.address

    def statuses(self) -> list[dict[str, Any]]:
        if self.ray_workers is not None:
            return self.ray_workers.statuses()
        out = []
        for w in range(len(self.workers)):
            path = self.work / f"worker-{w}.json"
            if path.exists():
                out.append(json.loads(path.read_text(encoding="utf-8")))
        return out

    def sent(self, kinds: Sequence[str]) -> tuple[int, int]:
        """Messages and bytes the edges sent so far, of ``kinds``."""
        statuses = self.statuses()
        return (
            sum(s["messages"].get(k, 0) for s in statuses for k in kinds),
            sum(s["bytes"].get(k, 0) for s in statuses for k in kinds),
        )

    def poll(self) -> None:
        assert self.cloud is not None
        rss, cpu = _proc(self.cloud.pid)
        self.sample.peak_rss_mb = max(self.sample.peak_rss_mb, rss)
        self.sample.cpu_s = cpu

    def edges_view(self) -> list[cloud_pb2.EdgeInfo]:
        with self.channel(ADMIN) as ch:
            reply = cloud_pb2_grpc.CloudStub(ch).ListEdges(
                cloud_pb2.ListEdgesRequest(), metadata=auth_metadata(ADMIN, self.tokens[ADMIN]), timeout=60
            )
        return list(reply.edges)

    def embedded(self) -> int:
        """The cloud's dgrag_cloud_summaries_embedded counter."""
        port = self.env["DGRAG__METRICS_PORT"]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as reply:
            for line in reply.read().decode().splitlines():
                if line.startswith("dgrag_cloud_summaries_embedded_total"):
                    return int(float(line.split()[-1]))
        return -1

    def wait_held(self, label: str, began: float) -> float:
        """Seconds from ``began`` until the cloud holds every swarm edge's summaries and every session is
        connected."""
        want = self.opts.edges * self.opts.summaries_per_edge
        while time.perf_counter() - began < self.opts.timeout_s:
            self.poll()
            view = [e for e in self.edges_view() if e.edge_id not in self.real_ids]
            held = sum(e.summaries for e in view)
            connected = sum(e.connected for e in view)
            print(f"  {label}: {held}/{want} summaries held, {connected}/{self.opts.edges} connected", flush=True)
            if held >= want and connected >= self.opts.edges:
                return time.perf_counter() - began
            time.sleep(5.0)  # listing 10,000 edges costs the cloud's loop a few hundred ms
        raise SystemExit(f"{label}: the cloud did not hold every summary within {self.opts.timeout_s:.0f} s")

    def stop(self) -> None:
        if self.ray_workers is not None:
            self.ray_workers.stop()
        for worker in self.workers:
            worker.terminate()
        for worker in self.workers:
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
        if self.cloud is not None:
            self.cloud.stop()


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
    cuts = statistics.quantiles(times, n=20)
    return {"p50_ms": round(statistics.median(times), 2), "p95_ms": round(cuts[18], 2), "n": len(times)}


def stage_one(store: Path, questions: Sequence[str]) -> dict[str, float]:
    """Stage 1 of routing as the cloud runs it (dense and sparse over every summary held, ranked by edge), timed in
    this process on a copy of the cloud's index loaded from its store: p50 and p95 in ms, the question's
    embedding excluded."""
    from cloud_server.experiments import SummaryIndex, SummaryStore
    from shared.config import CloudQueryConfig, EmbedderConfig
    from shared.models.factory import build_embedder

    embedder = build_embedder(EmbedderConfig())
    index = SummaryIndex(embedder, SummaryStore(store, embedder.name, embedder.dim))
    cfg = CloudQueryConfig()
    vectors = embedder.embed(list(questions))
    times = []
    for question, vector in zip(questions, vectors, strict=True):
        began = time.perf_counter()
        index.search(vector, max(cfg.top_m, 8), cfg.edge_pool, question, cfg.sparse_weight)
        times.append(1000 * (time.perf_counter() - began))
    cuts = statistics.quantiles(times, n=20)
    return {"p50_ms": round(statistics.median(times), 2), "p95_ms": round(cuts[18], 2), "summaries": index.count()}


def idle_cost(swarm: Swarm) -> dict[str, float]:
    """Loopback bytes per edge per hour while only heartbeats flow (both directions, framing and TLS included)."""
    before, began = _loopback_bytes(), time.perf_counter()
    time.sleep(swarm.opts.idle_s)
    seconds = time.perf_counter() - began
    per_edge_hour = (_loopback_bytes() - before) / swarm.opts.edges * 3600 / seconds
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
        out["cold_start_s"] = round(swarm.wait_held("cold start", began), 2)
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
        out["cloud_peak_rss_mb"] = round(swarm.sample.peak_rss_mb, 1)
        out["cloud_cpu_s"] = round(swarm.sample.cpu_s, 1)
    finally:
        swarm.stop()
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
    swarm.cloud.stop()
    say("cloud stopped; starting again ...")
    began = time.perf_counter()
    swarm.cloud = start_cloud(swarm.work, None, swarm.env, "127.0.0.1", port=port)
    swarm.cloud.wait_ready()
    back = swarm.wait_held("after restart", began)
    time.sleep(2.0)  # the workers write their counts every second
    messages, sent = (a - b for a, b in zip(swarm.sent(kinds), sent_before, strict=True))
    view = swarm.edges_view()
    return {
        "restart_s": round(back, 2),
        "embedded_after_restart": swarm.embedded(),
        "summary_messages_resent": messages,
        "summary_bytes_resent": sent,
        "sessions_lost": sum(1 for e in view if not e.connected and e.edge_id not in swarm.real_ids),
    }
