"""Serving the operators' page (cloud_server.transport.ops_page) with uvicorn and Starlette, not a hand-written
``http.server``: idle connections time out, connections are bounded, failed logins are throttled per address,
and a page that would send its token in the clear off this machine is refused unless told ``ops_insecure``.
"""

from __future__ import annotations

import base64
import binascii
import logging
import time

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from cloud_server.parts import CloudParts
from cloud_server.sessions.tokens import TokenBook
from cloud_server.transport.ops_page import RecentQuestions, render
from shared.core.addresses import address_block, is_loopback
from shared.core.errors import ConfigError
from shared.transport.call_limits import CallBuckets
from shared.transport.http_server import HttpServer

log = logging.getLogger(__name__)
FAILED_LOGINS_PER_MINUTE, FAILED_LOGIN_BURST = 10.0, 5
"""Wrong credentials one address may send a minute (5 at once) before it gets 429 for a while."""


def ops_app(parts: CloudParts, recent: RecentQuestions, tokens: TokenBook) -> Starlette:
    """The page as an ASGI app: GET / to an admin credential (HTTP basic authentication: id and token)."""
    failures = CallBuckets(FAILED_LOGINS_PER_MINUTE, FAILED_LOGIN_BURST)

    async def page(request: Request) -> Response:
        host = address_block(request.client.host) if request.client else "?"  # an IPv6 host's whole /64
        if (wait := failures.waiting(host)) > 0:
            return PlainTextResponse("too many failed logins", 429, {"Retry-After": str(int(wait) + 1)})
        if not _admin(request.headers.get("authorization", ""), tokens):
            failures.take(host)
            return PlainTextResponse("unauthorised", 401, {"WWW-Authenticate": 'Basic realm="dgrag cloud operators"'})
        return HTMLResponse(render(parts, recent, time.time()), headers={"Cache-Control": "no-store"})

    return Starlette(routes=[Route("/", page, methods=["GET"])])


def serve_ops_page(
    parts: CloudParts, recent: RecentQuestions, tokens: TokenBook, host: str, port: int, insecure: bool = False
) -> HttpServer:
    """Serve the page at http://host:port/; refused off loopback unless ``insecure`` (basic authentication
    sends the admin token in the clear)."""
    if not insecure and not is_loopback(f"{host}:{port}"):
        raise ConfigError(
            f"ops_host = {host!r} would send the operators' token in the clear (HTTP basic authentication) over "
            "the network: keep ops_host on 127.0.0.1 and reach the page through an SSH tunnel, or set "
            "ops_insecure = true on a network you trust entirely"
        )
    server = HttpServer(ops_app(parts, recent, tokens), host, port, "operators' page")
    log.info("operators' page on http://%s:%d/", host, server.port)
    return server


def _admin(header: str, tokens: TokenBook) -> bool:
    if not header.startswith("Basic "):
        return False
    try:
        user, _, token = base64.b64decode(header[6:], validate=True).decode().partition(":")
    except (ValueError, UnicodeDecodeError, binascii.Error):
        return False
    credential = tokens.check(user, token)
    return credential is not None and credential.role == "admin"
