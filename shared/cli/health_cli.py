"""``dgrag health ADDRESS``: the standard gRPC health check, for container health checks and scripts."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from shared.core.constants import DEFAULT_MAX_MESSAGE_BYTES
from shared.transport.connection_hints import explained
from shared.transport.grpc_transport import ClientTls, open_channel


def register(roles: Any) -> None:
    p = roles.add_parser("health", help="check that a dgrag server answers SERVING (exit 0) or not (exit 1)")
    p.add_argument("address", help="host:port of an edge or cloud")
    p.add_argument("--service", default="", help="service name to check (default: the whole server)")
    p.add_argument("--timeout", type=float, default=3.0)
    p.add_argument("--tls-ca", type=Path, help="PEM of the CA, when the server uses TLS")
    p.add_argument("--tls-cert", type=Path, help="this client's certificate, when the server wants one (mutual TLS)")
    p.add_argument("--tls-key", type=Path, help="its private key (mode 0600)")
    p.add_argument("--tls-server-name", default="", help="the name to check in the server's certificate")
    p.set_defaults(func=cmd_health)


async def check(address: str, service: str, timeout: float, tls: ClientTls | str = "") -> str:
    """The server's status name (SERVING, ...), or ``CODE: details (what to change)`` when it did not answer."""
    tls = tls if isinstance(tls, ClientTls) else ClientTls(ca=tls)
    # a health check carries no credential, so plaintext to another machine is fine here
    async with open_channel(address, DEFAULT_MAX_MESSAGE_BYTES, tls, carries_secrets=False) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.aio.AioRpcError as exc:
            return explained(exc.code().name, exc.details() or "", tls, address)
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))


def cmd_health(args: argparse.Namespace) -> int:
    tls = ClientTls(
        ca=str(args.tls_ca or ""),
        server_name=args.tls_server_name,
        cert=str(args.tls_cert or ""),
        key=str(args.tls_key or ""),
    )
    status = asyncio.run(check(args.address, args.service, args.timeout, tls))
    print(f"{args.address}: {status}", file=sys.stdout if status == "SERVING" else sys.stderr)
    return 0 if status == "SERVING" else 1
