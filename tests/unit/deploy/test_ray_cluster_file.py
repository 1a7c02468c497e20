"""docker/ray-cluster.yaml: a Ray cluster of containers for simulations, checked as compose would read it."""

from __future__ import annotations

from typing import Any

import yaml

from simulation.compare_runs import by_ask, differences
from tests.support.paths import REPO

ROOT = REPO


def _services() -> dict[str, Any]:
    spec = yaml.safe_load((ROOT / "docker" / "ray-cluster.yaml").read_text())
    services: dict[str, Any] = spec["services"]
    return services


def test_the_head_offers_no_cpus_and_each_worker_has_its_own_memory_limit() -> None:
    services = _services()
    assert set(services) == {"ray-head", "ray-worker-1", "ray-worker-2"}
    assert "--num-cpus 0" in services["ray-head"]["command"], "no edge host may land beside the cloud"
    for name in ("ray-worker-1", "ray-worker-2"):
        worker = services[name]
        assert worker["mem_limit"] and "--address ray-head:6379" in worker["command"]
        assert worker["hostname"] == name


def test_every_node_needs_the_cluster_token_and_mounts_the_shared_directory_at_the_same_path() -> None:
    for name, service in _services().items():
        env = service["environment"]
        assert env["RAY_AUTH_MODE"] == "token", name
        assert ":?" in env["RAY_AUTH_TOKEN"], f"{name} must refuse to start without a token"
        [volume] = service["volumes"]
        source, _, target = volume.rpartition(":")
        assert source.startswith("${DGRAG_SHARED:?") and target == "${DGRAG_SHARED}", name


def test_two_runs_compare_ask_by_ask() -> None:
    row = {"qid": "q1", "asked_at": "e1", "mode": "dgrag", "decision": "local", "edges_asked": [], "short": "A"}
    same = by_ask([row])
    assert differences(same, by_ask([dict(row)])) == []
    other = by_ask([{**row, "short": "B"}, {**row, "qid": "q2"}])
    assert differences(same, other) == [
        "('q2', 'e1', 'dgrag'): only in the second run",
        "('q1', 'e1', 'dgrag') short: 'A' != 'B'",
    ]
