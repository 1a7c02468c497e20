"""Serving a Prometheus registry over HTTP (``/metrics``), for the cloud and the edges."""

from __future__ import annotations

import logging
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, start_http_server

from shared.errors import ConfigError

log = logging.getLogger(__name__)


def serve_metrics(registry: CollectorRegistry, host: str, port: int) -> WSGIServer:
    """Serve ``registry`` at http://host:port/metrics in a daemon thread; ``shutdown()`` stops it."""
    try:
        server, _ = start_http_server(port, addr=host, registry=registry)
    except OSError as exc:
        raise ConfigError(f"cannot serve metrics on {host}:{port} ({exc}); choose another metrics_port") from exc
    log.info("metrics on http://%s:%d/metrics", host, server.server_port)
    return server
