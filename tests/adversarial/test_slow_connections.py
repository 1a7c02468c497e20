"""Trust round 3, finding 5: slow or silent connections cannot hold the side pages (metrics, the operators' page).
A thousand clients that each send part of a request and stop leave a real request answered within a second."""

from __future__ import annotations

import socket
import time
import urllib.request
from collections.abc import Callable, Iterator

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from shared.transport.http_server import HEAD_S, HttpServer

SLOW = 1000


async def _page(request: object) -> PlainTextResponse:
    return PlainTextResponse("operators' page")


@pytest.fixture
def server() -> Iterator[HttpServer]:
    served = HttpServer(Starlette(routes=[Route("/", _page)]), "127.0.0.1", 0, "test page")
    try:
        yield served
    finally:
        served.shutdown()


def _answered_within(port: int) -> float:
    started = time.perf_counter()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as reply:
        assert reply.status == 200 and reply.read() == b"operators' page"
    return time.perf_counter() - started


def test_a_thousand_partial_requests_leave_the_page_answering_within_a_second(
    server: HttpServer, record_property: Callable[[str, object], None]
) -> None:
    held: list[socket.socket] = []
    try:
        for _ in range(SLOW):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # a request head that never ends
            held.append(s)
        seconds = _answered_within(server.port)
        record_property("figure", f"the page answered in {seconds:.2f} s with {SLOW} partial requests open")
        assert seconds < 1.0
    finally:
        for s in held:
            s.close()


def test_a_request_head_that_never_ends_is_closed_after_its_deadline(server: HttpServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=HEAD_S + 5) as s:
        s.sendall(b"GET / HTTP/1.1\r\n")
        started = time.perf_counter()
        for _ in range(HEAD_S * 4):  # a byte a quarter second: uvicorn's own timer would never fire
            try:
                s.sendall(b"X")
            except OSError:
                break
            time.sleep(0.25)
        s.settimeout(HEAD_S + 5)
        try:
            closed = s.recv(1024) == b""
        except ConnectionResetError:
            closed = True
        assert closed and time.perf_counter() - started < HEAD_S + 3
