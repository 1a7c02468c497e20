"""An edge host: many edges in one process, sharing one loaded SLM and one embedder
(``python -m simulation.edge_host SPEC``).

Each hosted edge keeps what makes it an edge: its own data directory (store, indexes, audit log), its own
configuration and privacy policy, its own gRPC API (own port, own API token) and its own session to the cloud.
What they share is the model pool (:mod:`simulation.model_pool`): calls queue fairly, one at a time. This is how
simulations run tens of edges on one machine; ``dgrag edge serve`` stays the one-edge-per-device path.

The host is described by a JSON spec::

    {"edges": [{"data_dir": "edges/e00", "config": "edge.toml",
                "settings": {"DGRAG__EDGE_ID": "e00", "DGRAG__CLOUD__ADDRESS": "127.0.0.1:50051", ...},
                "port_file": "run/e00.port"}, ...]}

``settings`` are the ``DGRAG__`` overrides of that edge (as environment variables would be for one process).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from edge_node.api import EdgeModels, build_edge, serve_edge
from shared.cli.port_file import write_port_file
from shared.config import EdgeConfig, load_config
from shared.core.errors import ConfigError
from shared.models.factory import build_embedder, build_generator
from shared.models.tokenizer import Tokenizer, WordPieceTokenizer
from shared.transport.lifecycle import stop_on_signals
from simulation.edge_parts import EdgeKnowledgeBase, check_model_endpoints
from simulation.model_pool import ModelPool

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class HostedEdge:
    """One edge of a host: where its data lives, its configuration, where to write its port."""

    data_dir: Path
    config: EdgeConfig
    port_file: Path | None = None
    settings: dict[str, str] = field(default_factory=dict)


def read_host_spec(path: Path, environ: dict[str, str] | None = None) -> list[HostedEdge]:
    """The edges of a host spec; relative paths are relative to the spec file. Every mistake names the entry."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f'host spec {path}: {exc}; it needs {{"edges": [{{"data_dir": ...}}, ...]}}') from exc
    return parse_host_spec(raw, path.parent, f"host spec {path}", environ)


def parse_host_spec(raw: Any, base_dir: Path, source: str, environ: dict[str, str] | None = None) -> list[HostedEdge]:
    """The edges of an already-parsed host spec (``source`` names it in errors); relative paths are relative to
    ``base_dir``; ``DGRAG__`` variables of ``environ`` (default: this process's) apply to every edge."""
    entries = raw.get("edges") if isinstance(raw, dict) else None
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f'{source}: \'edges\' must be a non-empty list: {{"edges": [{{"data_dir": ...}}, ...]}}')
    base = {k: v for k, v in (os.environ if environ is None else environ).items() if k.startswith("DGRAG__")}
    edges = [_entry(source, base_dir, i, e, base) for i, e in enumerate(entries)]
    _check_unique(source, edges)
    return edges


def _entry(source: str, base_dir: Path, index: int, entry: Any, base: dict[str, str]) -> HostedEdge:
    where = f"{source}, edge #{index}"
    if not isinstance(entry, dict) or not isinstance(entry.get("data_dir"), str):
        raise ConfigError(f'{where}: each edge needs a "data_dir" string')
    settings = entry.get("settings") or {}
    if not isinstance(settings, dict) or not all(isinstance(v, str) for v in settings.values()):
        raise ConfigError(f'{where}: "settings" must map DGRAG__ names to strings')
    config_file = base_dir / entry["config"] if entry.get("config") else None
    config = load_config(EdgeConfig, config_file, environ={**base, **settings})
    port_file = base_dir / entry["port_file"] if entry.get("port_file") else None
    return HostedEdge(base_dir / entry["data_dir"], config, port_file, settings)


def _check_unique(source: str, edges: Sequence[HostedEdge]) -> None:
    ids = [e.config.edge_id for e in edges]
    if dup := sorted({i for i in ids if ids.count(i) > 1}):
        raise ConfigError(f"{source}: edge id(s) {dup} appear twice; give each edge its own DGRAG__EDGE_ID")
    dirs = [e.data_dir.resolve() for e in edges]
    if len(set(dirs)) != len(dirs):
        raise ConfigError(f"{source}: two edges share a data_dir; each edge needs its own")
    models = {(e.config.slm, e.config.embedder) for e in edges}
    if len(models) > 1:
        raise ConfigError(
            f"{source}: the edges of one host share one SLM and one embedder; their slm and "
            "embedder settings must agree (host edges with other models in another host)"
        )


def host_pool(edges: Sequence[HostedEdge], max_waiting: int = 64) -> ModelPool:
    """The host's models, loaded once from the (agreeing) configuration of its edges."""
    config = edges[0].config
    check_model_endpoints(config)
    return ModelPool(build_generator(config.slm), build_embedder(config.embedder), max_waiting)


async def serve_host(
    edges: Sequence[HostedEdge],
    pool: ModelPool,
    stop: asyncio.Event | None = None,
    on_ready: Callable[[HostedEdge, int], None] = lambda edge, port: None,
    tokenizer: Tokenizer | None = None,
) -> None:
    """Serve every edge until ``stop`` is set (SIGTERM/SIGINT by default); one failing edge stops the host."""
    stop = stop or stop_on_signals()
    tokenizer = tokenizer or WordPieceTokenizer()
    with contextlib.ExitStack() as stack:
        kbs = [stack.enter_context(EdgeKnowledgeBase(e.data_dir)) for e in edges]
        tasks = []
        for edge, kb in zip(edges, kbs, strict=True):
            generator, embedder = pool.for_edge(edge.config.edge_id)
            runtime = build_edge(kb, edge.config, EdgeModels(generator, embedder, tokenizer))
            ready = _ready_callback(edge, on_ready)
            serving = serve_edge(runtime.config, runtime, ready, stop)
            tasks.append(asyncio.create_task(serving, name=edge.config.edge_id))
        await _until_stopped_or_failed(tasks, stop)


def _ready_callback(edge: HostedEdge, on_ready: Callable[[HostedEdge, int], None]) -> Callable[[int], None]:
    def ready(port: int) -> None:
        if edge.port_file is not None:
            write_port_file(edge.port_file, port)
        on_ready(edge, port)

    return ready


async def _until_stopped_or_failed(tasks: list[asyncio.Task[None]], stop: asyncio.Event) -> None:
    stopped = asyncio.create_task(stop.wait())
    done, _ = await asyncio.wait([*tasks, stopped], return_when=asyncio.FIRST_COMPLETED)
    failed = [t for t in done if t is not stopped and t.exception() is not None]
    stop.set()  # the others shut down gracefully
    await asyncio.gather(*tasks, return_exceptions=True)
    if failed:
        task = failed[0]
        log.error("edge %s failed; the host stopped its other edges", task.get_name())
        raise task.exception()  # type: ignore[misc]


def run_host(spec: Path, port_file: Path | None, max_waiting: int = 64) -> None:
    """Serve the edges of the host spec ``spec`` until stopped (``dgrag edge host``); ``port_file`` gets the first
    edge's port once every edge listens."""
    edges = read_host_spec(spec)  # every mistake in the spec fails here, before the models load
    pool = host_pool(edges, max_waiting)
    listening: dict[str, int] = {}

    def ready(edge: HostedEdge, port: int) -> None:
        listening[edge.config.edge_id] = port
        if len(listening) == len(edges):
            write_port_file(port_file, next(iter(listening.values())))

    try:
        asyncio.run(serve_host(edges, pool, on_ready=ready))
    finally:
        pool.close()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m simulation.edge_host SPEC [--max-waiting N] [--port-file F]``: serve the spec's edges."""
    p = argparse.ArgumentParser(prog="python -m simulation.edge_host", description=__doc__.split("\n")[0])
    p.add_argument("spec", type=Path, help="host spec JSON: the edges, their configs and settings")
    p.add_argument("--max-waiting", type=int, default=64, help="model calls one edge may have queued")
    p.add_argument("--port-file", type=Path, help="written (first edge's port) once every edge listens")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    run_host(args.spec, args.port_file, args.max_waiting)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
