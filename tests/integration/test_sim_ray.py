"""`dgrag sim run --backend ray` on a two-node Ray cluster on this machine (two `ray start` processes): the edge
hosts are placed on both nodes and the run decides and answers exactly as the local backend."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from cloud_server.api import CloudParts, build_cloud, serve_cloud
from cloud_server.sessions.tokens import TokenBook
from shared.config import CloudConfig
from shared.transport.secret_file import write_secret
from simulation.fakes import HashEmbedder, RegexTokenizer, ScriptedGenerator
from simulation.processes import dgrag_command
from simulation.ray_backend import RayOptions, ray_backend
from simulation.swarm_ray import RayWorkers
from tests.integration.conftest import SixEdgeRun
from tests.integration.six_edges import decisions, sim_run
from tests.support.grpc_harness import DIM, answer_from_context, token_of

pytestmark = pytest.mark.integration

RAY = Path(sys.executable).parent / "ray"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Cluster:
    address: str
    env: dict[str, str]
    """The environment of every node and of the driver: token authentication with this cluster's token."""


def _ray(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(RAY), *args], capture_output=True, text=True, timeout=180, check=False, env=env)


@pytest.fixture()
def two_node_cluster() -> Iterator[Cluster]:
    """A head and a worker node, one CPU each, on this machine, with token authentication (as docs/simulation.md
    sets a cluster up); stopped afterwards (`ray stop` stops every Ray process of this user on the machine)."""
    if importlib.util.find_spec("ray") is None or not RAY.is_file():
        pytest.skip("Ray is not installed in this environment: pip install 'dgrag[ray]'")
    port = _free_port()
    cluster = Cluster(
        f"127.0.0.1:{port}",
        {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32), "HF_HUB_OFFLINE": "1"},
    )
    common = ["--num-cpus", "1", "--disable-usage-stats"]
    try:
        head = _ray(cluster.env, "start", "--head", "--port", str(port), "--include-dashboard", "false", *common)
        if head.returncode != 0:
            pytest.skip(f"Ray cannot start a head node on this machine: {head.stderr[-1500:]}")
        worker = _ray(cluster.env, "start", "--address", cluster.address, *common)
        if worker.returncode != 0:
            pytest.skip(f"Ray cannot start a second node on this machine: {worker.stderr[-1500:]}")
        yield cluster
    finally:
        _ray(cluster.env, "stop", "--force")


def test_ray_backend_on_two_nodes_decides_as_local(
    six_edge_run: SixEdgeRun, two_node_cluster: Cluster, tmp_path: Path
) -> None:
    out = tmp_path / "ray"
    cluster = ("--backend", "ray", "--ray-address", two_node_cluster.address)
    rows = sim_run(six_edge_run.bench, out, six_edge_run.cache, 3, *cluster, env=two_node_cluster.env)
    report = json.loads((out / "report.json").read_text())
    assert report["backend"]["backend"] == "ray"
    assert report["backend"]["nodes"] == 2
    hosts = report["hosts"]
    assert len(hosts) == 2, hosts
    assert len({h["node"] for h in hosts.values()}) == 2, f"SPREAD placed both hosts on one node: {hosts}"
    assert all(h["peak_rss_bytes"] > 50 * 2**20 for h in hosts.values())
    assert decisions(rows) == decisions(six_edge_run.rows)


def test_ray_backend_refuses_a_cluster_too_small_for_the_declared_cpus(
    six_edge_run: SixEdgeRun, two_node_cluster: Cluster, tmp_path: Path
) -> None:
    done = subprocess.run(
        [
            *dgrag_command(),
            "sim",
            "run",
            "--bench",
            str(six_edge_run.bench),
            "--out",
            str(tmp_path / "big"),
            "--cache-dir",
            str(six_edge_run.cache),
            "--modes",
            "local",
            "--backend",
            "ray",
            "--ray-address",
            two_node_cluster.address,
            "--ray-edge-cpus",
            "1",
        ],
        capture_output=True,
        text=True,
        env=two_node_cluster.env,
        timeout=600,
        check=False,
    )
    assert done.returncode != 0
    assert "declares 1 CPU" in done.stderr and "no node has that left" in done.stderr, done.stderr[-2000:]
    assert "--ray-edge-cpus" in done.stderr


def test_swarm_workers_on_two_nodes_hold_every_session(
    two_node_cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`dgrag sim swarm --ray`'s workers: two actors, one per node, each holding its edges' sessions (the real
    session and transport, plaintext on the cluster's network) against a cloud in this process."""
    for key in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN"):
        monkeypatch.setenv(key, two_node_cluster.env[key])
    edges = [f"swarm-{i:05d}" for i in range(12)]
    write_secret(tmp_path / "tokens", "".join(f"edge {e} {token_of(e)}\n" for e in edges))
    with ray_backend(RayOptions(address=two_node_cluster.address), dict(os.environ)) as backend:
        config = CloudConfig(host=backend.bind_host, port=_free_port(), heartbeat_interval_s=0.5)
        with _cloud_thread(config, tmp_path / "tokens") as parts:
            address = f"{backend.bind_host}:{config.port}"
            specs = [_swarm_spec(address, edges[w::2]) for w in range(2)]
            workers = RayWorkers(backend, specs, cpus=0.5)
            try:
                deadline = time.monotonic() + 60
                while parts.index.count() < 2 * len(edges) or _connected(workers) < len(edges):
                    assert time.monotonic() < deadline, f"{parts.index.count()} summaries, {workers.statuses()}"
                    time.sleep(0.2)
                assert len(set(workers.nodes)) == 2, f"SPREAD placed both workers on one node: {workers.nodes}"
                assert {s["node"] for s in workers.statuses()} == set(workers.nodes)
                assert all(parts.registry.connected(e) for e in edges)
                assert sorted(parts.index.counts_by_edge()) == sorted(edges)
            finally:
                workers.stop()


def _connected(workers: RayWorkers) -> int:
    return sum(int(s["connected"]) for s in workers.statuses())


def _swarm_spec(address: str, edges: list[str]) -> dict[str, object]:
    return {
        "cloud": address,
        "heartbeat_s": 0.5,
        "backoff_initial_s": 0.05,
        "backoff_max_s": 0.5,
        "status": "",
        "tls": None,
        "edges": [
            {"id": e, "token": token_of(e), "texts": [f"Site {e} of Kestrel Shipping.", f"Ida Lund runs {e}."]}
            for e in edges
        ],
    }


@contextmanager
def _cloud_thread(config: CloudConfig, tokens: Path) -> Iterator[CloudParts]:
    """A cloud (no models: a hashing embedder) served on an event loop of its own thread."""
    parts = build_cloud(config, HashEmbedder(DIM), ScriptedGenerator(answer_from_context), RegexTokenizer())
    ready = threading.Event()
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()

    def serve() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(serve_cloud(config, parts, TokenBook.load(tokens), lambda _port: ready.set(), stop))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert ready.wait(30), "the cloud did not start"
    try:
        yield parts
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(30)
