"""gRPC plumbing both sides use: channel and server options, TLS, the health service, auth metadata."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from shared.call_limits import BoundedHealth
from shared.constants import ADMISSION_WAIT_S, AUTHORIZATION_HEADER, EDGE_ID_HEADER, SESSION_ADMITTED
from shared.errors import ConfigError

KEEPALIVE_MS = 20_000
"""Ping an idle connection this often, so NAT boxes keep the edge's stream open."""


def options(max_message_bytes: int) -> list[tuple[str, int]]:
    """Message size limits (deliberate: larger messages get RESOURCE_EXHAUSTED) and keepalive."""
    return [
        ("grpc.max_send_message_length", max_message_bytes),
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.keepalive_time_ms", KEEPALIVE_MS),
        ("grpc.keepalive_timeout_ms", 10_000),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.max_pings_without_data", 0),
        ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ]


def server_options(max_message_bytes: int) -> list[tuple[str, int]]:
    return [*options(max_message_bytes), ("grpc.http2.min_recv_ping_interval_without_data_ms", 10_000)]


def open_channel(address: str, max_message_bytes: int, tls_ca: str = "", tls_server_name: str = "") -> grpc.aio.Channel:
    """An asyncio channel to ``address`` (host:port), TLS when a CA file is given."""
    opts: list[tuple[str, int | str]] = list(options(max_message_bytes))
    if not tls_ca:
        return grpc.aio.insecure_channel(address, options=opts)
    credentials = grpc.ssl_channel_credentials(root_certificates=_read(tls_ca, "tls_ca"))
    if tls_server_name:
        opts.append(("grpc.ssl_target_name_override", tls_server_name))
    return grpc.aio.secure_channel(address, credentials, options=opts)


def bind(server: grpc.aio.Server, host: str, port: int, tls_cert: str = "", tls_key: str = "") -> int:
    """Listen on host:port (port 0 = any free one), TLS when a cert and key are given; returns the port."""
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if bool(tls_cert) != bool(tls_key):
        raise ConfigError("TLS needs both tls_cert and tls_key (or neither for plaintext)")
    if tls_cert:
        credentials = grpc.ssl_server_credentials([(_read(tls_key, "tls_key"), _read(tls_cert, "tls_cert"))])
        bound = server.add_secure_port(address, credentials)
    else:
        bound = server.add_insecure_port(address)
    if bound == 0:
        raise ConfigError(f"cannot listen on {address}: the port is taken or the address is not local")
    return int(bound)


def add_health(
    server: grpc.aio.Server, services: Sequence[str], watches_per_peer: int = 4, watches: int = 64
) -> health.aio.HealthServicer:
    """Register the standard health service for ``services`` (mark_serving then reports them as up), its Watch
    streams capped per peer address and in total (shared.call_limits)."""
    servicer = BoundedHealth(services, watches_per_peer, watches)
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    return servicer


async def mark_serving(servicer: health.aio.HealthServicer, services: list[str]) -> None:
    for name in ["", *services]:
        await servicer.set(name, health_pb2.HealthCheckResponse.SERVING)


def auth_metadata(edge_id: str, token: str) -> tuple[tuple[str, str], ...]:
    return ((EDGE_ID_HEADER, edge_id), (AUTHORIZATION_HEADER, f"Bearer {token}"))


async def admitted(call: grpc.aio.StreamStreamCall, timeout_s: float = ADMISSION_WAIT_S) -> bool:
    """Whether the cloud admitted a session call; wait for it before the first write.

    grpc aio reports INTERNAL instead of the server's status when a client write races the server's refusal
    (grpc/grpc#36066), so an edge with a revoked token would read "internal error" rather than "unauthenticated:
    ... check the tokens file". The cloud sends :data:`SESSION_ADMITTED` headers once its credential check admits
    a session; a refusal comes as trailers only, without them. False: read the call for the refusal's status.
    A cloud that sends no headers within ``timeout_s`` (one older than this check) is taken as admitting.
    """
    try:
        headers = await asyncio.wait_for(asyncio.shield(call.initial_metadata()), timeout_s)
    except TimeoutError:
        return True
    return SESSION_ADMITTED in tuple(headers or ())


def _read(path: str, setting: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(f"{setting} = {path!r} cannot be read: {exc}") from exc
