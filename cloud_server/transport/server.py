"""Run the cloud: gRPC server with auth, health, the session servicer and global queries."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

import grpc

from cloud_server.services.parts import CloudParts
from cloud_server.services.tokens import TokenBook
from cloud_server.transport.auth import TokenAuthInterceptor
from cloud_server.transport.metrics import CloudMetrics
from cloud_server.transport.ops_page import RecentQuestions
from cloud_server.transport.ops_server import serve_ops_page
from cloud_server.transport.publish_budget import PublishBudget
from cloud_server.transport.servicer import CloudServicer
from shared.config import CloudConfig
from shared.proto.dgrag.v1 import cloud_pb2_grpc
from shared.transport.call_limits import CallBuckets
from shared.transport.grpc_transport import add_health, bind, is_loopback, mark_serving, server_options
from shared.transport.lifecycle import stop_on_signals
from shared.transport.metrics_http import metrics_token, serve_metrics

FAILED_AUTH_BURST = 10
"""Failed authentications one address may have at once before failed_auth_per_minute paces it."""
log = logging.getLogger(__name__)
CLOUD_SERVICE = "dgrag.v1.Cloud"
GRACE_S = 2.0


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
    auth = _interceptor(config, tokens, metrics)
    server = grpc.aio.server(
        interceptors=[auth],
        options=server_options(config.max_message_bytes),
        maximum_concurrent_rpcs=config.max_concurrent_rpcs,
    )
    cloud_pb2_grpc.add_CloudServicer_to_server(
        CloudServicer(
            parts.registry,
            parts.index,
            parts.queries,
            config.heartbeat_interval_s,
            tokens.role_of,
            config.hello_timeout_s,
            metrics,
            recent,
            PublishBudget(config.session_publishes_per_minute, config.session_summaries_per_minute),
        ),
        server,
    )
    health = add_health(server, [CLOUD_SERVICE], config.health_watches_per_peer, config.health_watches)
    port = bind(server, config.host, config.port, config.tls_cert, config.tls_key, config.tls_client_ca)
    if not config.tls_cert and not is_loopback(f"{config.host}:{port}"):
        log.warning(
            "the cloud listens on %s without TLS: tokens and answers cross the network in the clear; set tls_cert"
            " and tls_key (dgrag certs makes them)",
            config.host,
        )
    stop = stop or stop_on_signals()
    exporter = None
    if metrics is not None:
        token = metrics_token(config.metrics_token_file)
        exporter = serve_metrics(metrics.registry, config.metrics_host, config.metrics_port, token)
    page = (
        serve_ops_page(parts, recent, tokens, config.ops_host, config.ops_port, config.ops_insecure) if recent else None
    )
    await server.start()
    try:
        await mark_serving(health, [CLOUD_SERVICE])
        log.info("cloud listening on %s:%d (%s)", config.host, port, "TLS" if config.tls_cert else "plaintext")
        on_ready(port)
        await stop.wait()
    finally:
        await health.enter_graceful_shutdown()
        await server.stop(GRACE_S)
        parts.queries.close()
        for http_server in (exporter, page):
            if http_server is not None:
                http_server.shutdown()
