"""A small HTTP server for the processes' side pages (the owner's page, metrics, the operators' page): uvicorn in a
daemon thread of its own, with bounded requests and waiting connections, each request head due within HEAD_S and
its body within BODY_S (a slow or silent client is closed, the oldest first when too many wait), no access log and
no server header."""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import threading
import time

import uvicorn
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from shared.core.errors import ConfigError
from shared.transport.grpc_auth import bearer_of

MAX_CONNECTIONS = 32
"""Requests served at once; more get 503."""
MAX_WAITING = 64
"""Connections waiting to send a whole request head; a new connection beyond them closes the oldest, so slow or
silent clients cannot hold every place (a partial request no longer keeps one open)."""
HEAD_S = 5
"""A connection must send a whole request head within this long after it opens or after its last response."""
BODY_S = 30
"""A request's body must arrive whole within this long after its head (an upload of the largest file allowed, on
the device itself, takes a fraction of it); a client that stalls mid-body is closed."""
IDLE_S = HEAD_S
"""An idle keep-alive connection is closed after this long (uvicorn's own timer)."""
STARTUP_S = 10.0


class _IdleClosing(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, held to a deadline for each request head and then for its body (uvicorn's
    keep-alive timer stops at the first byte, so a client sending a request a byte at a time would stay forever)
    and to MAX_WAITING connections waiting for either, the oldest closed first."""

    _head_deadline: asyncio.TimerHandle | None = None
    """Closes the connection unless the request's head, then its body, arrives first (None: a whole request is
    being served); the soonest due is the connection that has waited longest."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        waiting = sorted(
            (c._head_deadline.when(), id(c), c)
            for c in self.connections
            if isinstance(c, _IdleClosing) and c._head_deadline is not None
        )
        for _, _, oldest in waiting[: max(len(waiting) - MAX_WAITING + 1, 0)]:
            oldest._drop()
        self._await_head()

    def data_received(self, data: bytes) -> None:
        head_awaited = self.cycle is None or self.cycle.response_complete
        super().data_received(data)
        if self.cycle is None or self.cycle.response_complete:
            return  # still no whole head: its clock runs on
        if not self.cycle.more_body:
            self._stop_clock()  # a request arrived whole: it is served, not timed
        elif head_awaited:
            self._stop_clock()
            self._head_deadline = self.loop.call_later(BODY_S, self._drop)  # the body's own clock

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_clock()
        super().connection_lost(exc)

    def _await_head(self) -> None:
        self._head_deadline = self.loop.call_later(HEAD_S, self._drop)

    def _stop_clock(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _drop(self) -> None:
        self._stop_clock()
        self.transport.close()


def _quiet(app: ASGIApp) -> ASGIApp:
    """``app``, ending a request quietly when its client went away mid-body (closed by a deadline, or gone): a
    dropped connection is not an error worth a traceback in the log."""

    async def served(scope: Scope, receive: Receive, send: Send) -> None:
        with contextlib.suppress(ClientDisconnect):
            await app(scope, receive, send)

    return served


class HttpServer:
    """``app`` served at http://host:port/ until :meth:`shutdown`."""

    def __init__(self, app: ASGIApp, host: str, port: int, what: str) -> None:
        config = uvicorn.Config(
            _quiet(app),
            host=host,
            port=port,
            log_level="warning",
            access_log=False,
            lifespan="off",
            server_header=False,
            timeout_keep_alive=IDLE_S,
            # uvicorn counts waiting connections too, and a closed one's request until it has ended
            limit_concurrency=MAX_CONNECTIONS + 2 * MAX_WAITING,
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
