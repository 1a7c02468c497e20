"""Guessing the edge API's token is limited per address: past its failed-authentication budget every call from that
address is refused for a while, the right token's too, so a guess is never judged (trust round 4)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc

from shared.proto.dgrag.v1 import edge_pb2, edge_pb2_grpc
from shared.transport.grpc_auth import FAILED_AUTH_BURST, bearer_metadata
from tests.support.grpc_harness import ACME, start_network, status_of


def test_past_its_failed_authentications_an_address_is_refused_even_with_the_right_token(tmp_path: Path) -> None:
    async def main() -> None:
        net = await start_network(tmp_path, {"edge-a": ACME})
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{net.edge_ports['edge-a']}") as channel:
                stub = edge_pb2_grpc.EdgeStub(channel)
                right = net.edge_metadata("edge-a")
                assert await status_of(stub.Stats(edge_pb2.StatsRequest(), metadata=right)) == grpc.StatusCode.OK
                wrong = bearer_metadata("not-the-token-0123456789abcdefghijklmnop")
                codes = [await status_of(stub.Stats(edge_pb2.StatsRequest(), metadata=wrong)) for _ in range(40)]
                assert codes[:FAILED_AUTH_BURST] == [grpc.StatusCode.UNAUTHENTICATED] * FAILED_AUTH_BURST
                assert codes[-1] == grpc.StatusCode.RESOURCE_EXHAUSTED, "40 guesses are not judged at once"
                blocked = await status_of(stub.Stats(edge_pb2.StatsRequest(), metadata=right))
                assert blocked == grpc.StatusCode.RESOURCE_EXHAUSTED, "while throttled the right token is not judged"
        finally:
            await net.close()

    asyncio.run(main())
