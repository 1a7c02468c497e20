"""An edge that sends its summaries and stops sending (half-closes its session) has them applied: the cloud
drains what the session sent before the session ends. Real gRPC on loopback."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import grpc

from cloud_server.api import build_cloud, serve_cloud
from cloud_server.sessions.tokens import TokenBook
from shared.config import CloudConfig
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc, common_pb2
from shared.transport.grpc_transport import auth_metadata
from shared.transport.secret_file import write_secret
from simulation.fakes import HashEmbedder, RegexTokenizer, ScriptedGenerator
from tests.support.grpc_harness import DIM, answer_from_context, free_port, token_of

EDGE = "edge-a"


async def _half_closed_session(tmp: Path) -> int:
    write_secret(tmp / "tokens", f"edge {EDGE} {token_of(EDGE)}\n")
    config = CloudConfig(port=free_port())
    parts = build_cloud(config, HashEmbedder(DIM), ScriptedGenerator(answer_from_context), RegexTokenizer())
    ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    stop = asyncio.Event()
    cloud = asyncio.create_task(serve_cloud(config, parts, TokenBook.load(tmp / "tokens"), ready.set_result, stop))
    await ready
    summaries = [common_pb2.Summary(id=f"{EDGE}/sg-{i}", version=1, text=f"Site {i} of Kestrel.") for i in range(3)]

    async def requests() -> AsyncIterator[cloud_pb2.EdgeMessage]:
        yield cloud_pb2.EdgeMessage(hello=cloud_pb2.Hello(edge_id=EDGE))
        yield cloud_pb2.EdgeMessage(sync=cloud_pb2.SummarySync(summaries=summaries, up_to_seq=1))
        # and nothing more: the request stream ends at once

    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{config.port}") as channel:
            call = cloud_pb2_grpc.CloudStub(channel).Session(requests(), metadata=auth_metadata(EDGE, token_of(EDGE)))
            replies = [r.WhichOneof("kind") async for r in call]
        assert replies == ["welcome", "ack"], replies
        assert parts.index.settle(10)
        return parts.index.count(EDGE)
    finally:
        stop.set()
        await cloud


def test_summaries_sent_before_the_edge_stops_sending_are_held(tmp_path: Path) -> None:
    assert asyncio.run(asyncio.wait_for(_half_closed_session(tmp_path), 60)) == 3
