"""`dgrag sim run --backend ray` on a two-node Ray cluster on this machine (two `ray start` processes): the edge
hosts are placed on both nodes and the run decides and answers exactly as the local backend."""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from simulation.processes import dgrag_command
from tests.integration.conftest import SixEdgeRun
from tests.integration.six_edges import decisions, sim_run

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
