"""A cloud restarted on its summary store holds what it held: swarm edges (the real session and backoff, no models)
reconnect and send only empty deltas, and nothing is embedded again. Real gRPC on loopback, a real SQLite store."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import cast

from cloud_server.api import CloudParts, build_cloud, serve_cloud
from cloud_server.sessions.tokens import TokenBook
from edge_node.api import EdgeRuntime
from shared.config import CloudConfig, CloudLinkConfig, CloudQueryConfig
from shared.core.constants import DEFAULT_MAX_MESSAGE_BYTES
from shared.transport.secret_file import write_secret
from simulation.edge_parts import CloudLink, CloudSession
from simulation.fakes import HashEmbedder, RegexTokenizer, ScriptedGenerator
from simulation.swarm_edge import CannedEdge
from simulation.swarm_pool import varied
from tests.support.grpc_harness import DIM, answer_from_context, free_port, token_of

EDGES = [f"swarm-{i:05d}" for i in range(20)]
PER_EDGE = 3
POOL = [f"Site {i} of Kestrel Shipping in Bergen. Key entities: Kestrel, Bergen, Ida Lund {i}." for i in range(40)]


async def _cloud(config: CloudConfig, tokens: Path, stop: asyncio.Event) -> tuple[CloudParts, asyncio.Task[None]]:
    parts = build_cloud(config, HashEmbedder(DIM), ScriptedGenerator(answer_from_context), RegexTokenizer())
    ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(serve_cloud(config, parts, TokenBook.load(tokens), ready.set_result, stop))
    await ready
    return parts, task


async def _held(parts: CloudParts, sessions: list[CloudSession], timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while parts.index.count() < len(EDGES) * PER_EDGE or not all(s.connected for s in sessions):
        assert asyncio.get_running_loop().time() < deadline, f"{parts.index.count()} summaries held"
        await asyncio.sleep(0.05)


async def _restart(tmp: Path) -> tuple[int, int, list[CannedEdge]]:
    tokens = tmp / "tokens"
    write_secret(tokens, "".join(f"edge {e} {token_of(e)}\n" for e in EDGES))
    config = CloudConfig(
        port=free_port(),
        heartbeat_interval_s=0.5,
        summary_store=str(tmp / "state" / "summaries.sqlite3"),
        query=CloudQueryConfig(deadline_s=2.0),
    )
    link = CloudLinkConfig(address=f"127.0.0.1:{config.port}", backoff_initial_s=0.05, backoff_max_s=0.2)
    edges = [CannedEdge(e, varied(POOL, i, PER_EDGE)) for i, e in enumerate(EDGES)]
    sessions = [
        CloudSession(cast(EdgeRuntime, e), CloudLink(e.edge_id, link, token_of(e.edge_id), DEFAULT_MAX_MESSAGE_BYTES))
        for e in edges
    ]
    stop_edges, stop_cloud = asyncio.Event(), asyncio.Event()
    parts, cloud = await _cloud(config, tokens, stop_cloud)
    runs = [asyncio.create_task(s.run(stop_edges)) for s in sessions]
    try:
        await _held(parts, sessions)
        first = parts.index.embedded
        stop_cloud.set()
        await cloud
        await asyncio.sleep(0.3)  # the edges see the cloud gone and back off
        stop_cloud = asyncio.Event()
        again, cloud = await _cloud(dataclasses.replace(config), tokens, stop_cloud)
        await _held(again, sessions)
        await asyncio.sleep(0.2)
        return first, again.index.embedded, edges
    finally:
        stop_edges.set()
        await asyncio.gather(*runs, return_exceptions=True)
        stop_cloud.set()
        await cloud


def test_a_cloud_restarted_on_its_store_embeds_nothing_and_edges_send_only_their_differences(tmp_path: Path) -> None:
    first, again, edges = asyncio.run(asyncio.wait_for(_restart(tmp_path), 60))
    assert first == len(EDGES) * PER_EDGE and again == 0
    for edge in edges:
        assert edge.audit.messages["summary_sync"] == 1, "the whole set went once, on the first session"
        deltas = edge.audit.messages["summary_delta"]
        assert deltas >= 1 and edge.audit.bytes["summary_delta"] <= 8 * deltas, "only empty deltas after it"
