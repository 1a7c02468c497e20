"""gRPC plumbing both sides use: channel and server options, TLS, the health service, auth metadata."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from shared.core.addresses import is_loopback
from shared.core.constants import ADMISSION_WAIT_S, AUTHORIZATION_HEADER, EDGE_ID_HEADER, SESSION_ADMITTED
from shared.core.errors import ConfigError
from shared.transport.call_limits import BoundedHealth
from shared.transport.secret_file import read_secret

KEEPALIVE_MS = 20_000
"""Ping an idle connection this often, so NAT boxes keep the edge's stream open."""


RETRY_ATTEMPTS = 3
"""Tries of a retried call (the first and two retries)."""


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
    """Client options plus the server's ping policy, and no SO_REUSEPORT: gRPC sets it by default, so a second
    server on a taken port would bind too and the kernel would spread calls between the two at random."""
    return [
        *options(max_message_bytes),
        ("grpc.http2.min_recv_ping_interval_without_data_ms", 10_000),
        ("grpc.so_reuseport", 0),
    ]


@dataclass(frozen=True)
class ClientTls:
    """How a client reaches a server: TLS when ``ca`` is set, plaintext to a non-loopback address only when
    ``insecure`` says so in so many words."""

    ca: str = ""
    """PEM file of the CA that signed the server's certificate."""
    server_name: str = ""
    """Name to check in the server's certificate when it differs from the address's host."""
    cert: str = ""
    """This client's certificate (mutual TLS: the server may take it as the caller's identity)."""
    key: str = ""
    """Its private key (mode 0600)."""
    insecure: bool = False
    """Send credentials in plaintext to a non-loopback address (a network you trust entirely)."""


def retry_unavailable(service: str, methods: Sequence[str]) -> tuple[str, str]:
    """A gRPC service config (channel option) retrying ``methods`` of ``service`` on UNAVAILABLE: at most
    RETRY_ATTEMPTS tries, backing off from 0.2 s, all within the call's own deadline (a cloud restarting, a
    connection reset: not a fallback answer at the first blip)."""
    policy = {
        "maxAttempts": RETRY_ATTEMPTS,
        "initialBackoff": "0.2s",
        "maxBackoff": "2s",
        "backoffMultiplier": 2,
        "retryableStatusCodes": ["UNAVAILABLE"],
    }
    names = [{"service": service, "method": m} for m in methods]
    return "grpc.service_config", json.dumps({"methodConfig": [{"name": names, "retryPolicy": policy}]})


def open_channel(
    address: str,
    max_message_bytes: int,
    tls: ClientTls | None = None,
    carries_secrets: bool = True,
    extra: Sequence[tuple[str, int | str]] = (),
) -> grpc.aio.Channel:
    """An asyncio channel to ``address`` (host:port): TLS when ``tls.ca`` is set; a plaintext channel that would
    carry credentials off this machine is refused unless ``tls.insecure``. ``extra``: more channel options."""
    tls = tls or ClientTls()
    opts: list[tuple[str, int | str]] = [*options(max_message_bytes), *extra]
    if not tls.ca:
        if carries_secrets and not tls.insecure and not is_loopback(address):
            raise ConfigError(
                f"refusing to send credentials in plaintext to {address}, which is not this machine: give the CA"
                " of its TLS certificate (tls_ca; `dgrag certs` makes one) or, on a network you trust entirely,"
                " say insecure"
            )
        return grpc.aio.insecure_channel(address, options=opts)
    if bool(tls.cert) != bool(tls.key):
        raise ConfigError("a client certificate needs both tls_cert and tls_key (or neither)")
    credentials = grpc.ssl_channel_credentials(
        root_certificates=_read(tls.ca, "tls_ca"),
        private_key=read_secret(Path(tls.key), "tls_key").encode() if tls.key else None,
        certificate_chain=_read(tls.cert, "tls_cert") if tls.cert else None,
    )
    if tls.server_name:
        opts.append(("grpc.ssl_target_name_override", tls.server_name))
    return grpc.aio.secure_channel(address, credentials, options=opts)


def bind(
    server: grpc.aio.Server, host: str, port: int, tls_cert: str = "", tls_key: str = "", client_ca: str = ""
) -> int:
    """Listen on host:port (port 0 = any free one), TLS when a cert and key are given (and mutual TLS, every
    client presenting a certificate signed by ``client_ca``, when that is given); returns the port."""
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    if bool(tls_cert) != bool(tls_key):
        raise ConfigError("TLS needs both tls_cert and tls_key (or neither for plaintext)")
    if client_ca and not tls_cert:
        raise ConfigError("tls_client_ca (mutual TLS) needs the server's own tls_cert and tls_key")
    credentials = _server_credentials(tls_cert, tls_key, client_ca) if tls_cert else None
    try:
        if credentials is not None:
            bound = server.add_secure_port(address, credentials)
        else:
            bound = server.add_insecure_port(address)
    except RuntimeError:  # grpcio raises instead of returning 0 in recent releases
        bound = 0
    if bound == 0:
        raise ConfigError(
            f"cannot listen on {address}: the port is taken (another server, perhaps a second edge with the same"
            " server.port: give each edge on a host its own) or the address is not on this machine"
        )
    return int(bound)


def _server_credentials(tls_cert: str, tls_key: str, client_ca: str) -> grpc.ServerCredentials:
    pair = [(read_secret(Path(tls_key), "tls_key").encode(), _read(tls_cert, "tls_cert"))]
    if client_ca:
        return grpc.ssl_server_credentials(
            pair, root_certificates=_read(client_ca, "tls_client_ca"), require_client_auth=True
        )
    return grpc.ssl_server_credentials(pair)


def add_health(
    server: grpc.aio.Server, services: Sequence[str], watches_per_peer: int = 4, watches: int = 64
) -> health.aio.HealthServicer:
    """Register the standard health service for ``services`` (mark_serving then reports them as up), its Watch
    streams capped per peer address and in total (shared.transport.call_limits)."""
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
