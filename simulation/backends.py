"""Where a simulation's edge hosts run: local processes (``--backend local``) or Ray actors (``--backend ray``).

Both give the runner hosts and edge endpoints with the same shape (wait_ready, address, peak_rss_bytes, stop)
and say which address the cloud must listen on for the edges to reach it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from shared.core.errors import DgragError
from simulation.hosts import EdgeLaunch, start_hosts
from simulation.ray_backend import RayOptions, ray_backend

BACKENDS = ("local", "ray")


class Backend(Protocol):
    name: str
    bind_host: str
    """The address the cloud listens on: loopback locally, this node's address on a Ray cluster."""

    def describe(self) -> dict[str, Any]: ...

    def start_hosts(
        self, work: Path, launches: list[EdgeLaunch], per_host: int, config_file: Path | None, prefix: str
    ) -> tuple[list[Any], dict[str, Any]]: ...


class LocalBackend:
    """Each host is a ``simulation.edge_host`` process on this machine."""

    name = "local"
    bind_host = "127.0.0.1"

    def __init__(self, env: dict[str, str]) -> None:
        self._env = env

    def describe(self) -> dict[str, Any]:
        return {"backend": "local"}

    def start_hosts(
        self, work: Path, launches: list[EdgeLaunch], per_host: int, config_file: Path | None, prefix: str
    ) -> tuple[list[Any], dict[str, Any]]:
        return start_hosts(work, launches, per_host, config_file, self._env, prefix)


@contextmanager
def open_backend(name: str, ray: RayOptions, env: dict[str, str]) -> Iterator[Backend]:
    """The backend ``name`` for one run, connected (Ray started or joined) and closed after it."""
    if name == "local":
        yield LocalBackend(env)
    elif name == "ray":
        with ray_backend(ray, env) as backend:
            yield backend
    else:
        raise DgragError(f"unknown backend {name!r}; use one of {', '.join(BACKENDS)}")
