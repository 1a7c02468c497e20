"""The fleet of a swarm run (``dgrag sim swarm``): one real cloud and many swarm edges, on worker processes or
Ray actors (simulation.swarm_run measures them).

The cloud is the real ``dgrag cloud serve`` process, with its summary index on disk. The edges are swarm edges
(simulation.swarm_edge): the real session and transport, each with its own credential, without models, spread
over a few worker processes (or Ray actors: simulation.swarm_ray).
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport.certs import make_certs
from shared.transport.grpc_transport import auth_metadata
from shared.transport.secret_file import write_secret
from simulation.bundle import load_edges
from simulation.processes import Server
from simulation.ray_backend import RayBackend
from simulation.servers import start_cloud
from simulation.swarm_pool import summary_pool, varied
from simulation.swarm_ray import RayWorkers

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
    """The cloud process's peak RSS (its high-water mark, models included) and CPU seconds so far."""

    peak_rss_mb: float = 0.0
    cpu_s: float = 0.0


def _cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def loopback_bytes() -> int:
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
        self.tokens = {e: secrets.token_urlsafe(32) for e in [*self.ids, *self.real_ids, ADMIN]}
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
        self.sample.peak_rss_mb = max(self.sample.peak_rss_mb, self.cloud.peak_rss_bytes() / 2**20)
        self.sample.cpu_s = _cpu_seconds(self.cloud.pid)

    def edges_view(self) -> list[cloud_pb2.EdgeInfo]:
        with self.channel(ADMIN) as ch:
            reply = cloud_pb2_grpc.CloudStub(ch).ListEdges(
                cloud_pb2.ListEdgesRequest(), metadata=auth_metadata(ADMIN, self.tokens[ADMIN]), timeout=60
            )
        return list(reply.edges)

    def embedded(self) -> int:
        """The cloud's dgrag_cloud_summaries_embedded counter."""
        return self._metric("dgrag_cloud_summaries_embedded_total")

    def _metric(self, name: str) -> int:
        port = self.env["DGRAG__METRICS_PORT"]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as reply:
            for line in reply.read().decode().splitlines():
                if line.startswith(f"{name} "):
                    return int(float(line.split()[-1]))
        return -1

    def wait_held(self, label: str, began: float) -> tuple[float, float]:
        """Seconds from ``began`` until the cloud holds every swarm edge's summaries with every session connected,
        and until it has embedded them all (later when it embeds in the background: held summaries wait,
        routable by their words)."""
        want = self.opts.edges * self.opts.summaries_per_edge
        held_s = 0.0
        while time.perf_counter() - began < self.opts.timeout_s:
            self.poll()
            view = [e for e in self.edges_view() if e.edge_id not in self.real_ids]
            embedded = sum(e.summaries for e in view)
            waiting = self._metric("dgrag_cloud_summaries_waiting")
            connected = sum(e.connected for e in view)
            print(
                f"  {label}: {embedded + waiting}/{want} summaries held ({waiting} waiting for their embedding), "
                f"{connected}/{self.opts.edges} connected",
                flush=True,
            )
            if not held_s and embedded + waiting >= want and connected >= self.opts.edges:
                held_s = time.perf_counter() - began
            if held_s and embedded >= want:
                return held_s, time.perf_counter() - began
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
