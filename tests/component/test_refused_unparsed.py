"""A call refused for its credentials is refused before its request is parsed: an unauthenticated caller's
message, however large, costs the server no protobuf decoding (a real gRPC server on loopback)."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from shared.transport.call_limits import CallBuckets
from shared.transport.grpc_auth import ApiTokenInterceptor, bearer_metadata

METHOD = "/test.Parse/Echo"


class _Counted:
    def __init__(self) -> None:
        self.parsed = 0

    def parse(self, data: bytes) -> bytes:
        self.parsed += 1
        return data


async def _call(failed_auth: CallBuckets | None, metadata: tuple[tuple[str, str], ...]) -> tuple[str, int]:
    counted = _Counted()

    async def echo(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        return request[:4]

    handler = grpc.unary_unary_rpc_method_handler(echo, request_deserializer=counted.parse)
    interceptor = ApiTokenInterceptor("right-token", "the test")
    interceptor.failed_auth = failed_auth
    options = [("grpc.max_receive_message_length", 8 << 20)]
    server = grpc.aio.server(interceptors=[interceptor], options=options)
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler("test.Parse", {"Echo": handler})])
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=options) as channel:
            try:
                await channel.unary_unary(METHOD)(b"\x0a" * (4 << 20), metadata=metadata, timeout=20)
                code = "OK"
            except grpc.aio.AioRpcError as e:
                code = e.code().name
    finally:
        await server.stop(None)
    return code, counted.parsed


@pytest.mark.parametrize("failed_auth", [None, CallBuckets(10, 10)], ids=["plain", "failed-auth-limit"])
def test_a_refused_request_is_never_parsed(failed_auth: CallBuckets | None) -> None:
    assert asyncio.run(_call(failed_auth, ())) == ("UNAUTHENTICATED", 0)
    assert asyncio.run(_call(failed_auth, bearer_metadata("a-wrong-one"))) == ("UNAUTHENTICATED", 0)
    assert asyncio.run(_call(failed_auth, bearer_metadata("right-token"))) == ("OK", 1)
