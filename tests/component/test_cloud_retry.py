"""An edge's question to the cloud survives one UNAVAILABLE (a cloud restarting, a reset connection): the channel
retries it within the deadline instead of answering from a fallback at the first blip."""

from __future__ import annotations

import grpc

from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport.grpc_transport import RETRY_ATTEMPTS, open_channel, retry_unavailable
from tests.support.grpc_harness import run


class Flaky(cloud_pb2_grpc.CloudServicer):  # type: ignore[misc]
    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    async def GlobalQuery(self, request: cloud_pb2.GlobalQueryRequest, context: grpc.aio.ServicerContext) -> object:
        self.calls += 1
        if self.calls <= self.failures:
            await context.abort(grpc.StatusCode.UNAVAILABLE, "restarting")
        return cloud_pb2.GlobalQueryReply(answer="Omar Haddad.")


def _ask(failures: int, retried: bool) -> tuple[str, int]:
    async def main() -> tuple[str, int]:
        servicer = Flaky(failures)
        server = grpc.aio.server()
        cloud_pb2_grpc.add_CloudServicer_to_server(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        extra = [retry_unavailable("dgrag.v1.Cloud", ("GlobalQuery",))] if retried else []
        try:
            async with open_channel(f"127.0.0.1:{port}", 1 << 20, extra=extra) as channel:
                stub = cloud_pb2_grpc.CloudStub(channel)
                try:
                    reply = await stub.GlobalQuery(cloud_pb2.GlobalQueryRequest(question="Who?"), timeout=10)
                    return reply.answer, servicer.calls
                except grpc.aio.AioRpcError as exc:
                    return exc.code().name, servicer.calls
        finally:
            await server.stop(0)

    return run(main())


def test_one_unavailable_is_retried_and_a_lasting_one_is_not_retried_forever() -> None:
    assert _ask(1, retried=False) == ("UNAVAILABLE", 1)
    assert _ask(1, retried=True) == ("Omar Haddad.", 2)
    assert _ask(RETRY_ATTEMPTS, retried=True) == ("UNAVAILABLE", RETRY_ATTEMPTS), "bounded"
