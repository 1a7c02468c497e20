"""A server refuses a port another server holds (gRPC's default SO_REUSEPORT would let both bind and split the calls
between them at random)."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from shared.core.errors import ConfigError
from shared.transport.grpc_transport import bind, server_options


def test_a_second_server_on_a_taken_port_is_refused_with_what_to_do() -> None:
    async def run() -> None:
        first = grpc.aio.server(options=server_options(1 << 20))
        port = bind(first, "127.0.0.1", 0)
        await first.start()
        try:
            second = grpc.aio.server(options=server_options(1 << 20))
            with pytest.raises(ConfigError, match=r"the port is taken .* give each edge on a host its own"):
                bind(second, "127.0.0.1", port)
        finally:
            await first.stop(None)

    asyncio.run(run())
