"""The one start/stop skeleton of the edge's and the cloud's gRPC servers.

Both servers do the same around their own servicer: build an asyncio server with the credential check, the message
size and concurrency caps; register the servicer and the standard health service; bind; start; report SERVING;
run their background work; wait for the stop event; then report NOT_SERVING, drain calls for a grace period,
stop the background work and close what they opened, in that order."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from shared.transport.grpc_transport import add_health, bind, mark_serving, server_options
from shared.transport.lifecycle import stop_on_signals

GRACE_S = 2.0
"""Seconds calls in flight get to finish after a stop is asked."""


@dataclass(frozen=True)
class Listener:
    """Where and how a server listens: port 0 = any free one; TLS with a cert and key, mutual TLS with a client CA."""

    host: str
    port: int
    tls_cert: str = ""
    tls_key: str = ""
    client_ca: str = ""


@dataclass(frozen=True)
class GrpcService:
    """One server: the service its health reports, its servicer, the calls it admits and where it listens."""

    name: str
    """The full service name (dgrag.v1.Edge), reported SERVING by the health service while it runs."""
    register: Callable[[grpc.aio.Server], None]
    listener: Listener
    max_message_bytes: int
    max_concurrent_rpcs: int | None
    interceptors: Sequence[grpc.aio.ServerInterceptor] = ()
    health_watches_per_peer: int = 4
    health_watches: int = 64


Closer = Callable[[], Awaitable[Any] | None]
"""Something to close after the server stopped: a plain or async callable."""


@dataclass
class Lifetime:
    """What runs beside a server and what closes after it: ``openers`` run once the port is bound, before the
    server starts (each may return its closer, e.g. a metrics endpoint's shutdown); ``background`` starts once the
    server is up and is cancelled when it stops; then ``closers`` run in order, then the openers' closers."""

    background: Callable[[asyncio.Event], Coroutine[Any, Any, None]] | None = None
    closers: list[Closer] = field(default_factory=list)
    openers: list[Callable[[], Closer | None]] = field(default_factory=list)


async def serve_grpc(
    service: GrpcService,
    lifetime: Lifetime,
    on_ready: Callable[[int], None],
    stop: asyncio.Event | None = None,
    announce: Callable[[int], None] = lambda port: None,
) -> None:
    """Serve ``service`` until ``stop`` is set (SIGTERM or SIGINT when no event is given); ``announce`` logs
    the bound port once SERVING, before ``on_ready`` is told it."""
    server = grpc.aio.server(
        interceptors=list(service.interceptors),
        options=server_options(service.max_message_bytes),
        maximum_concurrent_rpcs=service.max_concurrent_rpcs,
    )
    service.register(server)
    health = add_health(server, [service.name], service.health_watches_per_peer, service.health_watches)
    at = service.listener
    port = bind(server, at.host, at.port, at.tls_cert, at.tls_key, at.client_ca)
    stop = stop or stop_on_signals()
    opened = [close for open_ in lifetime.openers if (close := open_()) is not None]
    await server.start()
    task = asyncio.create_task(lifetime.background(stop)) if lifetime.background else None
    try:
        await mark_serving(health, [service.name])
        announce(port)
        on_ready(port)
        await stop.wait()
    finally:
        await health.enter_graceful_shutdown()
        await server.stop(GRACE_S)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for close in [*lifetime.closers, *opened]:
            result = close()
            if inspect.isawaitable(result):
                await result
