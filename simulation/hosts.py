"""Edge hosts for the simulation: `python -m simulation.edge_host` processes, each serving K edges over one pool.

Each edge keeps its own data directory, settings, API token, port and cloud session; the runner reaches an
edge through :class:`HostedEndpoint`, which looks like a :class:`~simulation.processes.Server` of its own.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shared.core.errors import DgragError
from simulation.processes import START_TIMEOUT_S, Server

EDGE_HOST_COMMAND = [sys.executable, "-m", "simulation.edge_host"]
"""What runs an edge host (a spec of K edges sharing one SLM and embedder)."""


@dataclass(frozen=True)
class EdgeLaunch:
    """What one edge needs to start: its data, its settings (DGRAG__ overrides) and where its port goes."""

    edge_id: str
    data_dir: Path
    settings: dict[str, str]


class HostedEndpoint:
    """One edge inside a host process, with the address its API listens on."""

    def __init__(self, name: str, port_file: Path, host: Server, edges_in_host: int) -> None:
        self.name = name
        self.host = host
        self._port_file = port_file
        self._edges_in_host = edges_in_host
        self.port = 0

    @property
    def address(self) -> str:
        if not self.port:
            raise DgragError(f"{self.name} has no port yet; call wait_ready() first")
        return f"127.0.0.1:{self.port}"

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> int:
        self.host.wait_ready(timeout)  # the host writes its port file once every edge listens
        if not self._port_file.is_file():
            raise DgragError(f"{self.name}: its host is ready but wrote no port file; see {self.host.log}")
        self.port = int(self._port_file.read_text().strip())
        return self.port

    def peak_rss_bytes(self) -> int:
        """This edge's share of its host's peak RSS (the models are shared, so per-edge cost is the mean)."""
        return self.host.peak_rss_bytes() // self._edges_in_host

    def stop(self, timeout: float = 20.0) -> None:
        """An edge stops with its host."""


def host_groups(edge_ids: list[str], per_host: int) -> list[list[str]]:
    """``edge_ids`` in groups of at most ``per_host``, as even as possible, in order."""
    if per_host < 1:
        raise DgragError(f"--edges-per-host {per_host}: a host serves at least one edge")
    n_hosts = math.ceil(len(edge_ids) / per_host)
    size, extra = divmod(len(edge_ids), n_hosts)
    groups, start = [], 0
    for i in range(n_hosts):
        end = start + size + (1 if i < extra else 0)
        groups.append(edge_ids[start:end])
        start = end
    return groups


def host_spec(launches: list[EdgeLaunch], config_file: Path | None, port_files: dict[str, Path]) -> dict[str, Any]:
    """The host spec (see simulation.edge_host) of ``launches``; an edge writes its port to ``port_files[edge_id]``."""
    entries = []
    for launch in launches:
        entry: dict[str, Any] = {"data_dir": str(launch.data_dir.resolve()), "settings": dict(launch.settings)}
        if launch.edge_id in port_files:
            entry["port_file"] = str(port_files[launch.edge_id].resolve())
        if config_file:
            entry["config"] = str(config_file.resolve())
        entries.append(entry)
    return {"edges": entries}


def start_hosts(
    work: Path,
    launches: list[EdgeLaunch],
    per_host: int,
    config_file: Path | None,
    env: dict[str, str],
    prefix: str,
    command: list[str] | None = None,
) -> tuple[list[Server], dict[str, HostedEndpoint]]:
    """Start the host processes (``prefix``-0, -1, ...) for ``launches``; returns them and each edge's endpoint.
    ``command``: what runs a host spec (default simulation.edge_host; simulation.liar_host for a dishonest
    participant)."""
    by_id = {launch.edge_id: launch for launch in launches}
    hosts: list[Server] = []
    endpoints: dict[str, HostedEndpoint] = {}
    for index, group in enumerate(host_groups(list(by_id), per_host)):
        name = f"{prefix}-{index}"
        spec = work / f"{name}.json"
        port_files = {edge_id: work / f"{edge_id}.port" for edge_id in group}
        for port_file in port_files.values():
            port_file.unlink(missing_ok=True)
        spec_data = host_spec([by_id[e] for e in group], config_file, port_files)
        spec.write_text(json.dumps(spec_data, indent=2), encoding="utf-8")
        host = Server(name, [str(spec)], work, env, command=command or EDGE_HOST_COMMAND)
        hosts.append(host)
        for edge_id in group:
            endpoints[edge_id] = HostedEndpoint(edge_id, port_files[edge_id], host, len(group))
    return hosts, endpoints
