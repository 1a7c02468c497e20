"""The edge host as a Ray actor: what simulation.edge_host does, inside a Ray worker (``dgrag sim run --backend ray``).

The actor takes the host spec as data (no spec file: a worker on another node may not see the driver's files
it was written to), binds every edge's API on its node's address and returns those addresses, so the
driver reaches edges wherever Ray placed them. Each edge still reads its data directory, token files and
config from paths in the spec: on a multi-node cluster those paths must be on storage every node mounts at
the same place (docs/simulation.md).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from pathlib import Path
from typing import Any

from simulation.edge_host import HostedEdge, host_pool, parse_host_spec, serve_host

log = logging.getLogger(__name__)

THREAD_ENV = ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "DGRAG_WAIT_POLICY")
"""Thread settings the driver's environment passes on as they are (Ray would otherwise set OMP_NUM_THREADS to
the actor's declared CPUs, floored to 1)."""


class EdgeHostActor:
    """One host of K edges sharing one SLM and one embedder; created by :mod:`simulation.ray_backend`."""

    def __init__(self, name: str, spec: dict[str, Any], base_dir: str, log_file: str) -> None:
        self.name = name
        self._spec = spec
        self._base_dir = Path(base_dir)
        self._node_ip = ""
        self._log_file = log_file
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self, environ: dict[str, str], max_waiting: int) -> dict[str, str]:
        """Load the models, serve every edge; returns each edge's API address once all listen."""
        import ray

        _log_to(self._log_file)
        self._node_ip = str(ray.util.get_node_ip_address())  # type: ignore[no-untyped-call]
        edges = self._edges(environ)
        _thread_environment(environ, edges)
        missing = [str(e.data_dir) for e in edges if not e.data_dir.is_dir()]
        if missing:
            raise FileNotFoundError(
                f"host {self.name} on node {socket.gethostname()} cannot see the data directories {missing[:3]}: "
                "on a multi-node cluster, --out and --cache-dir must be on storage every node mounts at the same path"
            )
        pool = host_pool(edges, max_waiting)
        ports: dict[str, int] = {}
        all_listen = asyncio.Event()

        def ready(edge: HostedEdge, port: int) -> None:
            ports[edge.config.edge_id] = port
            if len(ports) == len(edges):
                all_listen.set()

        self._stop = asyncio.Event()
        self._task = asyncio.create_task(serve_host(edges, pool, self._stop, ready))
        listening = asyncio.create_task(all_listen.wait())
        await asyncio.wait([self._task, listening], return_when=asyncio.FIRST_COMPLETED)
        if self._task.done():
            listening.cancel()
            self._task.result()  # the failure of the edge that stopped the host
            raise RuntimeError(f"host {self.name} stopped before its edges listened; see {self._log_file}")
        log.info("host %s: %d edges listen on %s", self.name, len(edges), self._node_ip)
        return {edge_id: f"{self._node_ip}:{port}" for edge_id, port in ports.items()}

    def _edges(self, environ: dict[str, str]) -> list[HostedEdge]:
        for entry in self._spec["edges"]:  # every edge listens on this node's address, wherever it was placed
            entry["settings"] = {
                **entry.get("settings", {}),
                "DGRAG__SERVER__HOST": self._node_ip,
                "DGRAG__SERVER__INSECURE": "true",  # the researcher's own cluster network, as the cloud link is
            }
        return parse_host_spec(self._spec, self._base_dir, f"host {self.name}", environ)

    async def peak_rss_bytes(self) -> int:
        """This worker's peak resident set size (VmHWM)."""
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
        return 0

    async def node(self) -> str:
        """The Ray node this host was placed on: its host name and the start of its node id."""
        import ray

        return f"{socket.gethostname()}/{ray.get_runtime_context().get_node_id()[:12]}"

    async def stop(self) -> None:
        """Stop every edge gracefully (their cloud sessions close, their stores flush)."""
        if self._stop is not None and self._task is not None:
            self._stop.set()
            await asyncio.gather(self._task, return_exceptions=True)


def _thread_environment(environ: dict[str, str], edges: list[HostedEdge]) -> None:
    """The thread settings a local host process would run with (see :data:`THREAD_ENV`)."""
    from shared.models.cpu import resolve_threads

    for key in THREAD_ENV:
        if key in environ:
            os.environ[key] = environ[key]
    if "OMP_NUM_THREADS" not in environ:
        os.environ["OMP_NUM_THREADS"] = str(resolve_threads(edges[0].config.slm.n_threads))


def _log_to(path: str) -> None:
    """The host's log in the run's work directory when this node sees it, else in Ray's worker log."""
    target: logging.Handler
    try:
        target = logging.FileHandler(path, encoding="utf-8")
    except OSError:
        target = logging.StreamHandler()
    target.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(target)
    root.setLevel(logging.INFO)
