"""Run the cloud: gRPC server with auth, health, the session servicer and global queries."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from cloud_server.parts import CloudParts
from cloud_server.sessions.tokens import TokenBook
from cloud_server.transport.auth import TokenAuthInterceptor
from cloud_server.transport.metrics import CloudMetrics
from cloud_server.transport.ops_page import RecentQuestions
from cloud_server.transport.ops_server import serve_ops_page
from cloud_server.transport.publish_budget import PublishBudget
from cloud_server.transport.servicer import CloudServicer
from shared.config import CloudConfig
from shared.core.addresses import is_loopback
from shared.proto.dgrag.v1 import cloud_pb2_grpc
from shared.transport.call_limits import CallBuckets
from shared.transport.grpc_auth import FAILED_AUTH_BURST
from shared.transport.grpc_server import GrpcService, Lifetime, Listener, serve_grpc
from shared.transport.metrics_http import metrics_opener

log = logging.getLogger(__name__)
CLOUD_SERVICE = "dgrag.v1.Cloud"


def _interceptor(config: CloudConfig, tokens: TokenBook, metrics: CloudMetrics | None) -> TokenAuthInterceptor:
    """The credential check of every call, with the per-credential and failed-authentication budgets."""
    auth = TokenAuthInterceptor(
        tokens, buckets=CallBuckets(config.calls_per_minute, config.call_burst), certified=bool(config.tls_client_ca)
    )
    auth.failed_auth = CallBuckets(config.failed_auth_per_minute, FAILED_AUTH_BURST)
    if metrics is not None:
        auth.on_refusal = metrics.refused
    return auth


async def serve_cloud(
    config: CloudConfig,
    parts: CloudParts,
    tokens: TokenBook,
    on_ready: Callable[[int], None] = lambda port: None,
    stop: asyncio.Event | None = None,
) -> None:
    """Serve until ``stop`` is set (or SIGTERM/SIGINT when run as the main program)."""
    metrics = CloudMetrics(parts) if config.metrics_port else None
    recent = RecentQuestions() if config.ops_port else None
    servicer = CloudServicer(
        parts.registry,
        parts.index,
        parts.queries,
        config.heartbeat_interval_s,
        tokens.role_of,
        config.hello_timeout_s,
        metrics,
        recent,
        PublishBudget(config.session_publishes_per_minute, config.session_summaries_per_minute),
    )
    service = GrpcService(
        name=CLOUD_SERVICE,
        register=lambda server: cloud_pb2_grpc.add_CloudServicer_to_server(servicer, server),
        listener=Listener(config.host, config.port, config.tls_cert, config.tls_key, config.tls_client_ca),
        max_message_bytes=config.max_message_bytes,
        max_concurrent_rpcs=config.max_concurrent_rpcs,
        interceptors=[_interceptor(config, tokens, metrics)],
        health_watches_per_peer=config.health_watches_per_peer,
        health_watches=config.health_watches,
    )
    if not config.tls_cert and not is_loopback(f"{config.host}:{config.port}"):
        log.warning(
            "the cloud listens on %s without TLS: tokens and answers cross the network in the clear; set tls_cert"
            " and tls_key (dgrag certs makes them)",
            config.host,
        )
    lifetime = Lifetime()
    if metrics is not None:
        lifetime.openers.append(
            metrics_opener(metrics.registry, config.metrics_host, config.metrics_port, config.metrics_token_file)
        )
    if recent is not None:
        lifetime.openers.append(
            lambda: (
                serve_ops_page(parts, recent, tokens, config.ops_host, config.ops_port, config.ops_insecure).shutdown
            )
        )

    def announce(port: int) -> None:
        log.info("cloud listening on %s:%d (%s)", config.host, port, "TLS" if config.tls_cert else "plaintext")

    await serve_grpc(service, lifetime, on_ready, stop, announce)
