"""Swarm workers as Ray actors (``dgrag sim swarm --ray``): the swarm's sessions spread over a Ray cluster's nodes.

Each worker is one actor holding its share of the sessions on its own event loop (the same
:func:`simulation.swarm_worker.serve` a worker process runs). Its spec travels as data with the certificates it
names, which the actor writes to a private directory on its node, so the nodes need no shared storage. The driver
asks every actor for its status instead of reading status files.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from shared.core.errors import DgragError
from simulation.ray_backend import RayBackend
from simulation.swarm_worker import serve

START_TIMEOUT_S = 300.0
STOP_TIMEOUT_S = 60.0


def inline_files(spec: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """``spec`` with each certificate or key path replaced by a file name, and those files' contents by name."""
    files: dict[str, str] = {}

    def named(path: str, name: str) -> str:
        if not path:
            return ""
        files[name] = Path(path).read_text(encoding="ascii")
        return name

    tls = spec.get("tls")
    edges = [
        e | {"cert": named(e.get("cert", ""), f"{e['id']}.crt"), "key": named(e.get("key", ""), f"{e['id']}.key")}
        for e in spec["edges"]
    ]
    shipped = spec | {"edges": edges, "status": ""}
    if tls:
        shipped["tls"] = tls | {"ca": named(tls.get("ca", ""), "ca.pem")}
    return shipped, files


def place_files(spec: dict[str, Any], files: dict[str, str], where: Path) -> dict[str, Any]:
    """``spec`` with the files of :func:`inline_files` written under ``where`` (owner-only) and named by path."""
    for name, text in files.items():
        if "/" in name or name.startswith("."):
            raise DgragError(f"a swarm spec names the file {name!r}: only plain file names are placed")
        with os.fdopen(
            os.open(where / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="ascii"
        ) as out:
            out.write(text)

    def at(name: str) -> str:
        return str(where / name) if name else ""

    edges = [e | {"cert": at(e.get("cert", "")), "key": at(e.get("key", ""))} for e in spec["edges"]]
    placed = spec | {"edges": edges}
    if spec.get("tls"):
        placed["tls"] = spec["tls"] | {"ca": at(spec["tls"].get("ca", ""))}
    return placed


class SwarmWorkerActor:
    """One share of the swarm's sessions, on whatever node Ray placed it."""

    def __init__(self) -> None:
        self._state: dict[str, Any] = {}
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._dir = ""

    async def start(self, spec: dict[str, Any], files: dict[str, str]) -> str:
        """Open every session of ``spec`` (in the background); returns the Ray node it runs on."""
        self._dir = tempfile.mkdtemp(prefix="dgrag-swarm-")
        placed = place_files(spec, files, Path(self._dir))
        self._task = asyncio.create_task(serve(placed, self._stop, self._keep))
        return _node()

    def _keep(self, state: dict[str, Any]) -> None:
        self._state = state | {"node": _node()}

    async def status(self) -> dict[str, Any]:
        if self._task is not None and self._task.done() and (error := self._task.exception()) is not None:
            raise error
        return self._state

    async def stop(self) -> None:
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(Exception):  # a failed worker has said so through status()
                await self._task
        shutil.rmtree(self._dir, ignore_errors=True)


def _node() -> str:
    """This Ray node: its host name and id (a cluster on one machine has several nodes of one host name)."""
    import ray

    return f"{socket.gethostname()}/{ray.get_runtime_context().get_node_id()[:8]}"


class RayWorkers:
    """The swarm's workers as actors, spread over the cluster (Ray's SPREAD strategy)."""

    def __init__(self, backend: RayBackend, specs: Sequence[dict[str, Any]], cpus: float) -> None:
        import ray as ray_module

        ray: Any = ray_module
        self._ray = ray
        self.actors: list[Any] = []
        started = []
        for spec in specs:
            shipped, files = inline_files(spec)
            actor = (
                ray.remote(SwarmWorkerActor)
                .options(num_cpus=cpus, scheduling_strategy="SPREAD", max_restarts=0)
                .remote()
            )
            self.actors.append(actor)
            started.append(actor.start.remote(shipped, files))
        try:
            self.nodes = list(ray.get(started, timeout=START_TIMEOUT_S))
        except ray.exceptions.RayError as exc:
            self.stop()
            raise DgragError(
                f"swarm workers did not start on Ray ({backend.options.address or 'local'}): {exc}; "
                "`ray status` shows whether the cluster has the CPUs they declare (--ray-worker-cpus)"
            ) from exc

    def statuses(self) -> list[dict[str, Any]]:
        found = self._ray.get([a.status.remote() for a in self.actors], timeout=60)
        return [s for s in found if s]

    def stop(self) -> None:
        with contextlib.suppress(self._ray.exceptions.RayError):
            self._ray.get([a.stop.remote() for a in self.actors], timeout=STOP_TIMEOUT_S)
        for actor in self.actors:
            self._ray.kill(actor)
