"""Serving a Prometheus registry over HTTP (``/metrics``), for the cloud and the edges, and the metric both
report the same way: the model queue."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from shared.core.errors import ConfigError
from shared.models.pending import model_calls
from shared.transport.http_server import HttpServer, bearer_matches
from shared.transport.secret_file import read_secret

log = logging.getLogger(__name__)


def serve_metrics(registry: CollectorRegistry, host: str, port: int, token: str = "") -> HttpServer:
    """Serve ``registry`` at http://host:port/metrics (uvicorn, in a daemon thread; ``shutdown()`` stops it);
    with ``token``, only to requests carrying ``Authorization: Bearer <token>``."""

    async def metrics(request: Request) -> Response:
        if token and not bearer_matches(request.headers.get("authorization", ""), token):
            return PlainTextResponse("unauthorised: send Authorization: Bearer <metrics token>", 401)
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    app = Starlette(routes=[Route("/metrics", metrics, methods=["GET"])])
    try:
        server = HttpServer(app, host, port, "metrics")
    except ConfigError as exc:
        raise ConfigError(f"cannot serve metrics on {host}:{port} ({exc}); choose another metrics_port") from exc
    log.info("metrics on http://%s:%d/metrics%s", host, server.port, " (token required)" if token else "")
    return server


def metrics_opener(
    registry: CollectorRegistry, host: str, port: int, token_file: str
) -> Callable[[], Callable[[], None]]:
    """What a server's lifetime opens for its metrics endpoint: called, it serves ``registry`` and returns the
    endpoint's shutdown. The token file is read now, so a bad one fails before anything is bound."""
    token = metrics_token(token_file)
    return lambda: serve_metrics(registry, host, port, token).shutdown


def metrics_token(path: str) -> str:
    """The token in ``path`` (read through the owner-and-mode check of every secret); "" when no file is set."""
    return read_secret(Path(path), "metrics_token_file").strip() if path else ""


def model_queue(prefix: str) -> GaugeMetricFamily:
    """``<prefix>_model_calls_pending{kind}``: this process's model calls waiting for their model or running."""
    gauge = GaugeMetricFamily(
        f"{prefix}_model_calls_pending", "Model calls waiting for the model or running (queue depth)", labels=["kind"]
    )
    for kind, count in sorted(model_calls().snapshot().items()):
        gauge.add_metric([kind], count)
    return gauge
