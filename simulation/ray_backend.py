"""``dgrag sim run --backend ray``: the edge hosts as Ray actors, on a Ray started for the run or on a cluster.

Each host of K edges is one actor (:class:`simulation.ray_actor.EdgeHostActor`) declaring K × ``edge_cpus`` CPUs
and ``host_memory_mb`` + K × ``edge_memory_mb`` of memory, placed with Ray's SPREAD strategy; the cloud and the
question driver stay local processes of the machine that runs the command (the cloud listens on that node's
address so edges on other nodes reach it). The edges and the answers are the same code as the local backend:
only where the host process runs changes.

Without ``--ray-address`` a Ray for this run starts on this machine and stops with it; with it the run joins
that cluster (``ray start --head`` and ``ray start --address`` on the others, the same environment on every
node, ``--out`` and ``--cache-dir`` on shared storage at the same path: docs/simulation.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shared.core.errors import DgragError
from simulation.hosts import EdgeLaunch, host_groups, host_spec
from simulation.processes import START_TIMEOUT_S
from simulation.ray_actor import THREAD_ENV, EdgeHostActor
from simulation.ray_capacity import Demand, live_nodes, placement_problem

STOP_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class RayOptions:
    """Where to run and what each edge declares to Ray's scheduler."""

    address: str = ""
    """A running cluster (``HOST:PORT`` of its head, or ``auto``); empty = start a Ray on this machine."""
    edge_cpus: float = 1 / 32
    """CPUs each edge declares (its host declares K times this): the default packs 64 edges on 2 cores."""
    edge_memory_mb: int = 32
    """Memory each edge declares on top of its host's."""
    host_memory_mb: int = 1024
    """Memory each host declares for its shared models (SLM + embedder, measured ≈ 0.8 GB)."""

    def check(self) -> None:
        if not 0 < self.edge_cpus <= 64:
            raise DgragError(f"--ray-edge-cpus {self.edge_cpus}: give a positive CPU share, e.g. 0.03125 (1/32)")
        if self.edge_memory_mb < 0 or self.host_memory_mb < 0:
            raise DgragError("--ray-edge-memory-mb and --ray-host-memory-mb must be 0 or more")


class RayHost:
    """A host actor, looking like a :class:`~simulation.processes.Server` to the runner."""

    def __init__(self, name: str, actor: Any, log: Path, edges: list[str], started: Any) -> None:
        self.name = name
        self.log = log
        self.edges = edges
        self._actor = actor
        self._started = started
        self.addresses: dict[str, str] = {}
        self.node = ""
        self._peak_rss = 0

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> int:
        ray = _ray()
        if self.addresses:
            return len(self.addresses)
        try:
            self.addresses = ray.get(self._started, timeout=timeout)
            self.node = ray.get(self._actor.node.remote(), timeout=timeout)
        except ray.exceptions.GetTimeoutError as exc:
            raise DgragError(
                f"Ray host {self.name} did not start within {timeout:.0f} s: the cluster may lack the CPUs or memory "
                f"it declares (see `ray status`), or the models load slowly; its log: {self.log}"
            ) from exc
        except ray.exceptions.RayError as exc:
            raise DgragError(f"Ray host {self.name} failed to start: {exc}") from exc
        return len(self.addresses)

    def peak_rss_bytes(self) -> int:
        ray = _ray()
        with contextlib.suppress(ray.exceptions.RayError):  # a stopped host reports its last reading
            self._peak_rss = max(self._peak_rss, int(ray.get(self._actor.peak_rss_bytes.remote(), timeout=30)))
        return self._peak_rss

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        ray = _ray()
        try:
            ray.get(self._actor.stop.remote(), timeout=timeout)
        except ray.exceptions.RayError:
            pass  # already gone or stuck: killed below either way
        finally:
            ray.kill(self._actor)


class RayEndpoint:
    """One edge inside a Ray host, with the address its API listens on (on whatever node Ray chose)."""

    def __init__(self, name: str, host: RayHost) -> None:
        self.name = name
        self.host = host

    @property
    def address(self) -> str:
        if self.name not in self.host.addresses:
            raise DgragError(f"{self.name} has no address yet; call wait_ready() first")
        return self.host.addresses[self.name]

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> int:
        return self.host.wait_ready(timeout)

    def peak_rss_bytes(self) -> int:
        """This edge's share of its host's peak RSS (the models are shared)."""
        return self.host.peak_rss_bytes() // max(1, len(self.host.edges))

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """An edge stops with its host."""


class RayBackend:
    """Edge hosts as Ray actors; the cloud binds this node's address so every node reaches it."""

    name = "ray"

    def __init__(self, options: RayOptions, env: dict[str, str]) -> None:
        self.options = options
        self._env = env
        self.bind_host = "127.0.0.1"

    def connect(self) -> None:
        try:
            ray = _ray()
        except ImportError as exc:
            raise DgragError("--backend ray needs Ray: pip install 'dgrag[ray]' (or -c constraints.txt ray)") from exc
        carried = {k: v for k, v in self._env.items() if k in THREAD_ENV or k == "HF_HUB_OFFLINE"}
        try:
            ray.init(
                address=self.options.address or None,
                log_to_driver=False,
                include_dashboard=False,
                configure_logging=False,
                runtime_env={"env_vars": {**carried, "HF_HUB_OFFLINE": "1"}},
            )
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = self.options.address or "a local Ray on this machine"
            raise DgragError(f"could not start or join Ray at {where}: {exc}") from exc
        self.bind_host = ray.util.get_node_ip_address()

    def close(self) -> None:
        ray = _ray()
        ray.shutdown()

    def describe(self) -> dict[str, Any]:
        ray = _ray()
        nodes = [n for n in ray.nodes() if n.get("Alive")]
        return {
            "backend": "ray",
            "ray_version": ray.__version__,
            "address": self.options.address or "local",
            "nodes": len(nodes),
            "cluster_resources": {k: v for k, v in ray.cluster_resources().items() if not k.startswith("node:")},
            "edge_cpus": self.options.edge_cpus,
            "edge_memory_mb": self.options.edge_memory_mb,
            "host_memory_mb": self.options.host_memory_mb,
        }

    def start_hosts(
        self, work: Path, launches: list[EdgeLaunch], per_host: int, config_file: Path | None, prefix: str
    ) -> tuple[list[RayHost], dict[str, RayEndpoint]]:
        """One actor per group of ``per_host`` edges, spread over the cluster; all asked to start at once."""
        ray = _ray()
        by_id = {launch.edge_id: launch for launch in launches}
        groups = host_groups(list(by_id), per_host)
        self._check_capacity(groups)
        hosts: list[RayHost] = []
        endpoints: dict[str, RayEndpoint] = {}
        for index, group in enumerate(groups):
            name = f"{prefix}-{index}"
            log = work / f"{name}.log"
            actor = (
                ray.remote(EdgeHostActor)
                .options(
                    num_cpus=len(group) * self.options.edge_cpus,
                    memory=self._memory_bytes(len(group)),
                    scheduling_strategy="SPREAD",
                    max_restarts=0,
                )
                .remote(name, host_spec([by_id[e] for e in group], config_file, {}), str(work), str(log))
            )
            started = actor.start.remote({}, 64)
            host = RayHost(name, actor, log, group, started)
            hosts.append(host)
            endpoints.update({edge_id: RayEndpoint(edge_id, host) for edge_id in group})
        return hosts, endpoints

    def _memory_bytes(self, edges: int) -> int:
        return (self.options.host_memory_mb + edges * self.options.edge_memory_mb) * 2**20

    def _check_capacity(self, groups: list[list[str]]) -> None:
        """Fail now, with what to change, when the cluster's nodes could never place every host."""
        demands = [
            Demand(
                f"{i} ({len(g)} edge{'' if len(g) == 1 else 's'})",
                len(g) * self.options.edge_cpus,
                self._memory_bytes(len(g)),
            )
            for i, g in enumerate(groups)
        ]
        if problem := placement_problem(demands, live_nodes(_ray().nodes())):
            raise DgragError(problem)


@contextmanager
def ray_backend(options: RayOptions, env: dict[str, str]) -> Iterator[RayBackend]:
    options.check()
    backend = RayBackend(options, env)
    backend.connect()
    try:
        yield backend
    finally:
        backend.close()


def _ray() -> Any:
    """The ray module (imported on use: the local backend runs without Ray installed)."""
    import ray

    return ray
