"""Run an edge: its gRPC API for local apps (token-checked, with health) and, when a cloud is configured, the
session to it. The API listens on loopback unless server.host says otherwise; the cloud never connects to it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from pathlib import Path

import grpc

from edge_node.runtime import EdgeRuntime
from edge_node.transport.api_token import API_TOKEN_FILE, api_token_path, ensure_api_token
from edge_node.transport.cloud_link import CloudLink
from edge_node.transport.cloud_session import CloudSession
from edge_node.transport.metrics import EdgeMetrics
from edge_node.transport.servicer import EdgeServicer
from shared.config import CloudLinkConfig, EdgeConfig
from shared.core.errors import ConfigError
from shared.proto.dgrag.v1 import edge_pb2_grpc
from shared.transport.grpc_auth import ApiTokenInterceptor
from shared.transport.grpc_transport import add_health, bind, mark_serving, server_options
from shared.transport.lifecycle import stop_on_signals
from shared.transport.metrics_http import metrics_token, serve_metrics
from shared.transport.secret_file import read_secret, refuse_example_token

log = logging.getLogger(__name__)
EDGE_SERVICE = "dgrag.v1.Edge"
GRACE_S = 2.0


def edge_token(link: CloudLinkConfig) -> str:
    """This edge's token, from token_file or the token_env variable."""
    if link.token_file:
        token = read_secret(Path(link.token_file), "cloud.token_file").strip()
    else:
        token = os.environ.get(link.token_env, "").strip()
    refuse_example_token(token, "this edge's cloud token")
    if not token:
        raise ConfigError(
            f"a cloud is configured ({link.address}) but this edge has no token: set {link.token_env} "
            "or cloud.token_file"
        )
    return token


async def serve_edge(
    config: EdgeConfig,
    runtime: EdgeRuntime,
    on_ready: Callable[[int], None] = lambda port: None,
    stop: asyncio.Event | None = None,
) -> None:
    """Serve until ``stop`` is set (or SIGTERM/SIGINT when run as the main program)."""
    # Summaries only matter to a cloud: an edge without one (e.g. the simulation's all-documents store) leaves a
    # pending refresh for when it has one, instead of spending minutes of SLM time at every start.
    repaired = await runtime.repair() if config.cloud.address else None
    if repaired is not None:
        log.info(
            "finished an interrupted summary refresh: %d upserted, %d deleted",
            len(repaired.upserted),
            len(repaired.deleted),
        )
    client = cloud_link(runtime, config)
    session = CloudSession(runtime, client) if client else None
    api_token = ensure_api_token(api_token_path(runtime.data_dir, config.server.token_file))
    server = grpc.aio.server(
        interceptors=[ApiTokenInterceptor(api_token, f"the edge API token ({API_TOKEN_FILE} in its data directory)")],
        options=server_options(config.server.max_message_bytes),
        maximum_concurrent_rpcs=config.server.max_concurrent_rpcs,
    )
    metrics = EdgeMetrics(runtime.audit) if config.server.metrics_port else None
    edge_pb2_grpc.add_EdgeServicer_to_server(EdgeServicer(runtime, client, session, metrics), server)
    health = add_health(server, [EDGE_SERVICE])
    port = bind(server, config.server.host, config.server.port, config.server.tls_cert, config.server.tls_key)
    stop = stop or stop_on_signals()
    served = config.server
    exporter = None
    if metrics is not None:
        token = metrics_token(served.metrics_token_file)
        exporter = serve_metrics(metrics.registry, served.metrics_host, served.metrics_port, token)
    await server.start()
    session_task = asyncio.create_task(session.run(stop)) if session else None
    try:
        await mark_serving(health, [EDGE_SERVICE])
        log.info(
            "edge %s listening on %s:%d; cloud: %s",
            runtime.edge_id,
            config.server.host,
            port,
            config.cloud.address or "none",
        )
        on_ready(port)
        await stop.wait()
    finally:
        await health.enter_graceful_shutdown()
        await server.stop(GRACE_S)
        if session_task is not None:
            session_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await session_task
        if client is not None:
            await client.aclose()
        await runtime.aclose()
        if exporter is not None:
            exporter.shutdown()


def cloud_link(runtime: EdgeRuntime, config: EdgeConfig) -> CloudLink | None:
    """This edge's link to the cloud (None without ``cloud.address``), auditing what it sends in its log."""
    if not config.cloud.address:
        return None
    cloud, server, privacy = config.cloud, config.server, config.privacy
    token = edge_token(cloud)
    return CloudLink(runtime.edge_id, cloud, token, server.max_message_bytes, runtime.audit, privacy.audit_content)
