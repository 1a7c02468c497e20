"""One process of the swarm: many swarm edges' sessions on one event loop.

    python -m simulation.swarm_worker SPEC.json

SPEC names the cloud, the transport settings and each edge (id, token, summary texts, client certificate). The
worker keeps every session open, with the real reconnection backoff, until SIGTERM; every second it writes its
status (edges connected, sessions opened, messages and bytes sent by kind) to the spec's status file.
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
from pathlib import Path
from typing import Any, cast

from edge_node.api import EdgeRuntime
from edge_node.experiments import CloudLink, CloudSession
from shared.config import CloudLinkConfig
from shared.core.constants import DEFAULT_MAX_MESSAGE_BYTES
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


async def serve(spec: dict[str, Any]) -> None:
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    edges, sessions = [], []
    for edge in spec["edges"]:
        canned = CannedEdge(edge["id"], edge["texts"])
        link = CloudLink(
            edge["id"], _link(spec, edge), edge["token"], DEFAULT_MAX_MESSAGE_BYTES, policy=canned.outbound
        )
        edges.append(canned)
        sessions.append(CloudSession(cast(EdgeRuntime, canned), link))
    runs = [asyncio.create_task(s.run(stop)) for s in sessions]
    status = Path(spec["status"])
    while not stop.is_set():
        temporary = status.with_suffix(".tmp")
        temporary.write_text(json.dumps(_status(edges, sessions)), encoding="utf-8")
        temporary.replace(status)
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
    asyncio.run(serve(spec))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
