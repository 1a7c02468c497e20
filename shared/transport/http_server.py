"""A small HTTP server for the processes' side pages (metrics, the operators' page): uvicorn in a daemon thread
of its own, with bounded connections, idle connections closed (also those that never send a request), no
access log and no server header."""

from __future__ import annotations

import asyncio
import hmac
import threading
import time

import uvicorn
from starlette.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol

from shared.core.errors import ConfigError
from shared.transport.grpc_auth import bearer_of

MAX_CONNECTIONS = 32
"""Connections served at once; more get 503."""
IDLE_S = 5
"""An idle keep-alive connection is closed after this long."""
STARTUP_S = 10.0


class _IdleClosing(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with its keep-alive timeout started on connect too: a connection that never
    sends a request is closed after IDLE_S (uvicorn times out only connections that finished a request)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive, self.timeout_keep_alive_handler)


class HttpServer:
    """``app`` served at http://host:port/ until :meth:`shutdown`."""

    def __init__(self, app: ASGIApp, host: str, port: int, what: str) -> None:
        config = uvicorn.Config(
            app,
            host=host,
            port=port,
            log_level="warning",
            access_log=False,
            lifespan="off",
            server_header=False,
            timeout_keep_alive=IDLE_S,
            limit_concurrency=MAX_CONNECTIONS,
            h11_max_incomplete_event_size=16 * 1024,
            http=_IdleClosing,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name=what, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + STARTUP_S
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise ConfigError(f"the {what} could not listen on {host}:{port}; choose another port")
            time.sleep(0.02)

    @property
    def port(self) -> int:
        return int(self._server.servers[0].sockets[0].getsockname()[1])

    def shutdown(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=STARTUP_S)


def bearer_matches(header: str, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``Bearer <token>`` (compared in constant time)."""
    given = bearer_of(header)
    return bool(given) and hmac.compare_digest(given.encode(), token.encode())
