"""A small client of a running edge's gRPC API (what `dgrag edge ask` and the simulation use)."""

from __future__ import annotations

import grpc

from shared.constants import DEFAULT_MAX_MESSAGE_BYTES
from shared.errors import DgragError
from shared.grpc_auth import bearer_metadata
from shared.grpc_transport import open_channel
from shared.proto.dgrag.v1 import edge_pb2, edge_pb2_grpc


async def ask_edge(
    address: str, token: str, question: str, mode: str = "full", timeout_s: float = 300.0, tls_ca: str = ""
) -> edge_pb2.QueryReply:
    """Ask the edge at ``address`` (TLS when ``tls_ca`` names the CA of its certificate); raises DgragError
    with the server's reason on failure."""
    async with open_channel(address, DEFAULT_MAX_MESSAGE_BYTES, tls_ca) as channel:
        stub = edge_pb2_grpc.EdgeStub(channel)
        try:
            reply: edge_pb2.QueryReply = await stub.Query(
                edge_pb2.QueryRequest(question=question, mode=mode), metadata=bearer_metadata(token), timeout=timeout_s
            )
        except grpc.aio.AioRpcError as exc:
            raise DgragError(f"the edge at {address} answered {exc.code().name}: {exc.details()}") from exc
    return reply
