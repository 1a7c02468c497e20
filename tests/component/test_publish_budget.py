"""An edge's session cannot make the cloud embed without end: a replayed delta costs nothing, a flood of
summary messages closes the session with RESOURCE_EXHAUSTED naming the setting."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import grpc
import pytest

from cloud_server.transport.publish_budget import PublishBudget
from shared.core.errors import ResourceExhaustedError
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc, common_pb2
from shared.transport.grpc_transport import auth_metadata
from tests.support.grpc_harness import run, start_network, token_of


def test_the_budget_counts_messages_and_embeddings_per_edge() -> None:
    budget = PublishBudget(publishes_per_minute=60, summaries_per_minute=100)
    for _ in range(20):
        budget.spend("a", 0)
    with pytest.raises(ResourceExhaustedError, match="session_publishes_per_minute"):
        budget.spend("a", 0)
    budget.spend("b", 20_000)  # a full sync of the most the cloud keeps fits an idle edge
    with pytest.raises(ResourceExhaustedError, match="session_summaries_per_minute"):
        budget.spend("b", 50)
    PublishBudget(0, 0).spend("c", 10**9)  # 0 = no limit


def test_a_flood_of_deltas_is_cut_off_and_a_replay_embeds_nothing(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {}, extra_edges=["edge-x"], session_publishes_per_minute=60.0)
        try:
            cards = [common_pb2.Summary(id=f"edge-x/sg-{i}", version=1, text=f"summary {i} of x") for i in range(50)]
            hello = cloud_pb2.EdgeMessage(hello=cloud_pb2.Hello(edge_id="edge-x"))
            flood = [
                cloud_pb2.EdgeMessage(delta=cloud_pb2.SummaryDelta(upserts=cards, up_to_seq=n)) for n in range(1, 200)
            ]
            index = net.cloud.index
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.cloud_port}") as channel:
                stub = cloud_pb2_grpc.CloudStub(channel)
                call = stub.Session(metadata=auth_metadata("edge-x", token_of("edge-x")))
                await call.write(hello)
                assert (await call.read()).WhichOneof("kind") == "welcome"
                acks = 0
                with contextlib.suppress(grpc.aio.AioRpcError):
                    for message in flood:  # as fast as the cloud acknowledges them
                        await call.write(message)
                        acks += (await call.read()).WhichOneof("kind") == "ack"
                code, details = await call.code(), await call.details()
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "session_publishes_per_minute" in details
            assert acks == 20, "the burst is served, then the session is closed"
            assert await asyncio.to_thread(index.settle, 30)
            assert index.embedded == 50, "the first delta is embedded; its 19 replays cost nothing"
            assert index.count("edge-x") == 50, "what was published stays"
        finally:
            await net.close()

    run(main())
