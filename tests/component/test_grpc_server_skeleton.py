"""The one server skeleton (shared/transport/grpc_server.py) on a real loopback port: health says SERVING while it
runs; on stop the background work is cancelled, then the closers run in order, then what the openers opened."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from shared.transport.grpc_server import GrpcService, Lifetime, Listener, serve_grpc

SERVICE = "dgrag.v1.Test"


def _service(port: int = 0) -> GrpcService:
    return GrpcService(
        name=SERVICE,
        register=lambda server: None,
        listener=Listener("127.0.0.1", port),
        max_message_bytes=1 << 20,
        max_concurrent_rpcs=None,
    )


async def _status(port: int) -> int:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=SERVICE))
        return int(reply.status)


def test_serves_then_stops_in_order() -> None:
    events: list[str] = []

    async def background(stop: asyncio.Event) -> None:
        events.append("background started")
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            events.append("background cancelled")
            raise

    async def close_async() -> None:
        events.append("async closer")

    def opener() -> object:
        events.append("opened")
        return lambda: events.append("opener's closer")

    async def main() -> int:
        stop = asyncio.Event()
        ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        lifetime = Lifetime(
            background=background, closers=[close_async, lambda: events.append("closer")], openers=[opener]
        )
        task = asyncio.create_task(serve_grpc(_service(), lifetime, ready.set_result, stop))
        port = await ready
        status = await _status(port)
        stop.set()
        await task
        return status

    assert asyncio.run(main()) == health_pb2.HealthCheckResponse.SERVING
    assert events == [
        "opened",
        "background started",
        "background cancelled",
        "async closer",
        "closer",
        "opener's closer",
    ]


def test_a_taken_port_fails_before_anything_opens() -> None:
    opened: list[str] = []

    async def main() -> None:
        stop = asyncio.Event()
        ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        first = asyncio.create_task(serve_grpc(_service(), Lifetime(), ready.set_result, stop))
        port = await ready
        try:
            lifetime = Lifetime(openers=[lambda: opened.append("opened")])
            with pytest.raises(Exception, match=str(port)):
                await serve_grpc(_service(port), lifetime, lambda p: None, asyncio.Event())
        finally:
            stop.set()
            await first

    asyncio.run(main())
    assert opened == []
