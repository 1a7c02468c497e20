"""Run an edge: its gRPC API for local apps (token-checked, with health) and, when a cloud is configured, the
session to it. The API listens on loopback unless server.host says otherwise; the cloud never connects to it."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from pathlib import Path

from edge_node.runtime.edge_runtime import EdgeRuntime
from edge_node.transport.api_token import API_TOKEN_FILE, api_token_path, ensure_api_token
from edge_node.transport.cloud_link import CloudLink
from edge_node.transport.cloud_session import CloudSession
from edge_node.transport.metrics import EdgeMetrics
from edge_node.transport.page.app import serve_owner_page
from edge_node.transport.servicer import EdgeServicer
from shared.config import CloudLinkConfig, EdgeConfig, EdgeServerConfig
from shared.core.addresses import host_is_loopback
from shared.core.errors import ConfigError
from shared.proto.dgrag.v1 import edge_pb2_grpc
from shared.transport.call_limits import CallBuckets
from shared.transport.grpc_auth import FAILED_AUTH_BURST, ApiTokenInterceptor
from shared.transport.grpc_server import Closer, GrpcService, Lifetime, Listener, serve_grpc
from shared.transport.metrics_http import metrics_opener
from shared.transport.secret_file import read_secret, refuse_example_token, refuse_weak_token

log = logging.getLogger(__name__)
EDGE_SERVICE = "dgrag.v1.Edge"


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
    refuse_weak_token(token, "this edge's cloud token")
    return token


def api_auth(api_token: str, served: EdgeServerConfig) -> ApiTokenInterceptor:
    """The API's token check, with a budget of failed authentications per peer address."""
    auth = ApiTokenInterceptor(api_token, f"the edge API token ({API_TOKEN_FILE} in its data directory)")
    auth.failed_auth = CallBuckets(served.failed_auth_per_minute, FAILED_AUTH_BURST)  # 0: buckets that never limit
    return auth


def check_api_listener(served: EdgeServerConfig) -> None:
    """ConfigError when the API would listen off loopback in plaintext: its token and answers would cross the
    network readable (the owner's page refuses the same)."""
    if not host_is_loopback(served.host) and not (served.tls_cert and served.tls_key) and not served.insecure:
        raise ConfigError(
            f"server.host = {served.host!r} would serve the edge API and its token in the clear over the network: "
            "set server.tls_cert and server.tls_key (`dgrag certs` makes them), keep it on 127.0.0.1, or, on a "
            "network you trust entirely, set server.insecure = true"
        )


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
    check_api_listener(config.server)
    token_file = api_token_path(runtime.data_dir, config.server.token_file)
    api_token = ensure_api_token(token_file)
    served = config.server
    metrics = EdgeMetrics(runtime.audit) if served.metrics_port else None
    servicer = EdgeServicer(runtime, client, session, metrics)
    service = GrpcService(
        name=EDGE_SERVICE,
        register=lambda server: edge_pb2_grpc.add_EdgeServicer_to_server(servicer, server),
        listener=Listener(served.host, served.port, served.tls_cert, served.tls_key),
        max_message_bytes=served.max_message_bytes,
        max_concurrent_rpcs=served.max_concurrent_rpcs,
        interceptors=[api_auth(api_token, served)],
    )
    closers: list[Closer] = [client.aclose] if client is not None else []
    lifetime = Lifetime(background=session.run if session else None, closers=[*closers, runtime.aclose])
    if metrics is not None:
        opener = metrics_opener(metrics.registry, served.metrics_host, served.metrics_port, served.metrics_token_file)
        lifetime.openers.append(opener)

    def open_page() -> Callable[[], None] | None:
        state = (lambda: (session.connected, session.last_error)) if session else (lambda: (False, ""))
        page = serve_owner_page(runtime, api_token, token_file, client, state)
        return page.shutdown if page is not None else None

    lifetime.openers.append(open_page)

    def announce(port: int) -> None:
        log.info(
            "edge %s listening on %s:%d; cloud: %s", runtime.edge_id, served.host, port, config.cloud.address or "none"
        )

    await serve_grpc(service, lifetime, on_ready, stop, announce)


def cloud_link(runtime: EdgeRuntime, config: EdgeConfig) -> CloudLink | None:
    """This edge's link to the cloud (None without ``cloud.address``), auditing what it sends in its log."""
    if not config.cloud.address:
        return None
    token = edge_token(config.cloud)
    max_bytes = config.server.max_message_bytes
    return CloudLink(runtime.edge_id, config.cloud, token, max_bytes, runtime.audit, runtime.outbound)
