"""Trust round 3, finding 5: slow or silent connections cannot hold the side pages (metrics, the operators' page).
A thousand clients that each send part of a request and stop leave a real request answered within a second."""

from __future__ import annotations

import socket
import time
import urllib.request
from collections.abc import Callable, Iterator

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
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


async def _login(request: Request) -> PlainTextResponse:
    await request.form()
    return PlainTextResponse("logged in")


@pytest.fixture
def login_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[HttpServer]:
    monkeypatch.setattr("shared.transport.http_server.BODY_S", 2)
    routes = [Route("/", _page), Route("/login", _login, methods=["POST"])]
    served = HttpServer(Starlette(routes=routes), "127.0.0.1", 0, "test page")
    try:
        yield served
    finally:
        served.shutdown()


STALLED_BODY = b"POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
STALLED_BODY += b"Content-Length: 100\r\n\r\ntoken"  # a whole head, 5 of its 100 body bytes, then nothing


def test_a_hundred_stalled_request_bodies_leave_the_page_answering(login_server: HttpServer) -> None:
    held = []
    try:
        for _ in range(100):
            s = socket.create_connection(("127.0.0.1", login_server.port), timeout=5)
            s.sendall(STALLED_BODY)
            held.append(s)
        assert _answered_within(login_server.port) < 2.0, "the owner's request takes an attacker's place"
    finally:
        for s in held:
            s.close()


def test_a_stalled_body_is_closed_after_its_deadline_without_a_traceback(
    login_server: HttpServer, capfd: pytest.CaptureFixture[str]
) -> None:
    with socket.create_connection(("127.0.0.1", login_server.port), timeout=10) as s:
        s.sendall(STALLED_BODY)
        started = time.perf_counter()
        try:
            reply = s.recv(1024)
        except ConnectionResetError:
            reply = b""
        waited = time.perf_counter() - started
        assert reply == b"", f"the connection was answered instead of closed: {reply[:80]!r}"
        assert 1.5 < waited < 2 + 3, f"closed after {waited:.1f} s, not at the body's deadline (2 s)"
    time.sleep(0.3)  # the server thread ends the request
    assert "Traceback" not in capfd.readouterr().err, "a dropped connection is not an error in the log"
