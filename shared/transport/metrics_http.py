"""Serving a Prometheus registry over HTTP (``/metrics``), for the cloud and the edges, and the metric both
report the same way: the model queue."""

from __future__ import annotations

import logging
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import GaugeMetricFamily

from shared.core.errors import ConfigError
from shared.models.pending import model_calls

log = logging.getLogger(__name__)


def serve_metrics(registry: CollectorRegistry, host: str, port: int) -> WSGIServer:
    """Serve ``registry`` at http://host:port/metrics in a daemon thread; ``shutdown()`` stops it."""
    try:
        server, _ = start_http_server(port, addr=host, registry=registry)
    except OSError as exc:
        raise ConfigError(f"cannot serve metrics on {host}:{port} ({exc}); choose another metrics_port") from exc
    log.info("metrics on http://%s:%d/metrics", host, server.server_port)
    return server


def model_queue(prefix: str) -> GaugeMetricFamily:
    """``<prefix>_model_calls_pending{kind}``: this process's model calls waiting for their model or running."""
    gauge = GaugeMetricFamily(
        f"{prefix}_model_calls_pending", "Model calls waiting for the model or running (queue depth)", labels=["kind"]
    )
    for kind, count in sorted(model_calls().snapshot().items()):
        gauge.add_metric([kind], count)
    return gauge
