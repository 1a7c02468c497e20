"""One process of the swarm: many swarm edges' sessions on one event loop.

    python -m simulation.swarm_worker SPEC.json

SPEC names the cloud, the transport settings and each edge (id, token, summary texts, client certificate). The
worker keeps every session open, with the real reconnection backoff, until SIGTERM; every second it writes its
status (edges connected, sessions opened, messages and bytes sent by kind) to the spec's status file. On a Ray
cluster the same sessions run inside an actor (simulation.swarm_ray), which reports its status when asked.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import resource
import signal
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from edge_node.api import EdgeRuntime
from shared.config import CloudLinkConfig
from shared.core.addresses import is_loopback
from shared.core.constants import DEFAULT_MAX_MESSAGE_BYTES
from simulation.edge_parts import CloudLink, CloudSession
from simulation.swarm_edge import CannedEdge


def _link(spec: dict[str, Any], edge: dict[str, Any]) -> CloudLinkConfig:
    tls = spec.get("tls") or {}
    return CloudLinkConfig(
        address=spec["cloud"],
        tls_ca=tls.get("ca", ""),
        tls_server_name=tls.get("server_name", ""),
        tls_cert=edge.get("cert", ""),
        tls_key=edge.get("key", ""),
        heartbeat_interval_s=float(spec["heartbeat_s"]),
        backoff_initial_s=float(spec["backoff_initial_s"]),
        backoff_max_s=float(spec["backoff_max_s"]),
        # a swarm across machines (Ray) runs on the researcher's own cluster network: plaintext there is said so
        insecure=not tls and not is_loopback(spec["cloud"]),
    )


def _status(edges: list[CannedEdge], sessions: list[CloudSession]) -> dict[str, Any]:
    messages: Counter[str] = Counter()
    sent: Counter[str] = Counter()
    for edge in edges:
        messages.update(edge.audit.messages)
        sent.update(edge.audit.bytes)
    return {
        "pid": os.getpid(),
        "edges": len(edges),
        "connected": sum(s.connected for s in sessions),
        "sessions_opened": sum(s.sessions_opened for s in sessions),
        "messages": dict(messages),
        "bytes": dict(sent),
    }


async def serve(spec: dict[str, Any], stop: asyncio.Event, report: Callable[[dict[str, Any]], None]) -> None:
    """Every edge of ``spec`` in session until ``stop``; ``report`` hears the status every second."""
    edges, sessions = [], []
    for edge in spec["edges"]:
        canned = CannedEdge(edge["id"], edge["texts"])
        link = CloudLink(
            edge["id"], _link(spec, edge), edge["token"], DEFAULT_MAX_MESSAGE_BYTES, policy=canned.outbound
        )
        edges.append(canned)
        sessions.append(CloudSession(cast(EdgeRuntime, canned), link))
    runs = [asyncio.create_task(s.run(stop)) for s in sessions]
    while not stop.is_set():
        report(_status(edges, sessions))
        try:
            await asyncio.wait_for(stop.wait(), timeout=1.0)
        except TimeoutError:
            continue
    await asyncio.gather(*runs, return_exceptions=True)


def main(argv: list[str]) -> int:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # one connection per edge
    logging.basicConfig(level=logging.ERROR)
    spec = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    status = Path(spec["status"])

    def report(state: dict[str, Any]) -> None:
        temporary = status.with_suffix(".tmp")
        temporary.write_text(json.dumps(state), encoding="utf-8")
        temporary.replace(status)

    async def until_terminated() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        await serve(spec, stop, report)

    asyncio.run(until_terminated())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
