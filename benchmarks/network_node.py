"""One cloud or edge process for network benchmarks: the real servers, with a scripted LLM.

    python -m benchmarks.network_node cloud --tokens FILE --port-file F [--embedder hash|minilm]
    python -m benchmarks.network_node edge --edge-id E --data-dir D --docs DOCS.jsonl --cloud HOST:PORT \
        --token-file F --port-file F [--embedder hash|minilm]
    python -m benchmarks.network_node host --edge-ids E1,E2,... --work DIR --docs DOCS.jsonl --cloud HOST:PORT \
        [--embedder hash|minilm]

The edge ingests its documents (rows of DOCS.jsonl with its edge id) with the scripted SLM on first start. A host
serves several edges in one process over one model pool, as `dgrag edge host` does (data in DIR/E, token in
DIR/E.token, port written to DIR/E.port).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path

from benchmarks.scripted_models import scripted_generator
from cloud_server.api import TokenBook, build_cloud, serve_cloud
from edge_node.api import Edge, EdgeModels, serve_edge
from shared.cli.port_file import write_port_file
from shared.config import CloudConfig, CloudLinkConfig, CloudQueryConfig, EdgeConfig, EdgeServerConfig
from shared.core.model_api import Embedder
from shared.models.fakes import HashEmbedder
from shared.models.pool import ModelPool
from shared.models.tokenizer import WordPieceTokenizer
from shared.transport.lifecycle import stop_on_signals


def embedder(kind: str) -> Embedder:
    if kind == "hash":
        return HashEmbedder(384)
    from shared.config import EmbedderConfig
    from shared.models.factory import build_embedder

    return build_embedder(EmbedderConfig())


def run_cloud(args: argparse.Namespace) -> None:
    # the benchmark fans out to every edge (top_k = all, up to 64)
    query = CloudQueryConfig(deadline_s=args.deadline, max_top_k=64, max_top_m=64, probe_shortlist=args.probe_shortlist)
    config = CloudConfig(port=0, query=query)
    parts = build_cloud(config, embedder(args.embedder), scripted_generator(), WordPieceTokenizer())
    tokens = TokenBook.load(args.tokens)
    asyncio.run(serve_cloud(config, parts, tokens, on_ready=lambda port: write_port_file(args.port_file, port)))


def _edge_config(edge_id: str, cloud: str, token_file: Path) -> EdgeConfig:
    return EdgeConfig(
        edge_id=edge_id,
        server=EdgeServerConfig(port=0),
        cloud=CloudLinkConfig(address=cloud, token_file=str(token_file), publish_interval_s=0.2),
    )


def _open_indexed(data_dir: Path, config: EdgeConfig, models: EdgeModels, docs: Path) -> Edge:
    edge = Edge.open(data_dir, config, models=models)
    if edge.stats(with_document_ids=False).documents == 0:
        edge.ingest([docs], bundle_edge=config.edge_id)
    return edge


def run_edge(args: argparse.Namespace) -> None:
    config = _edge_config(args.edge_id, args.cloud, args.token_file)
    models = EdgeModels(scripted_generator(), embedder(args.embedder), WordPieceTokenizer())
    with _open_indexed(args.data_dir, config, models, args.docs) as edge:
        asyncio.run(serve_edge(edge.config, edge.runtime, on_ready=lambda port: write_port_file(args.port_file, port)))


def run_host(args: argparse.Namespace) -> None:
    pool = ModelPool(scripted_generator(), embedder(args.embedder))
    with contextlib.ExitStack() as stack:
        edges = []
        for edge_id in args.edge_ids.split(","):
            generator, shared_embedder = pool.for_edge(edge_id)
            models = EdgeModels(generator, shared_embedder, WordPieceTokenizer())
            config = _edge_config(edge_id, args.cloud, args.work / f"{edge_id}.token")
            edges.append(stack.enter_context(_open_indexed(args.work / edge_id, config, models, args.docs)))

        def port_writer(edge_id: str) -> Callable[[int], None]:
            return lambda port: write_port_file(args.work / f"{edge_id}.port", port)

        async def serve_all() -> None:
            stop = stop_on_signals()
            served = [serve_edge(e.config, e.runtime, port_writer(e.config.edge_id), stop) for e in edges]
            await asyncio.gather(*served)

        asyncio.run(serve_all())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    roles = parser.add_subparsers(dest="role", required=True)
    cloud = roles.add_parser("cloud")
    cloud.add_argument("--tokens", type=Path, required=True)
    cloud.add_argument("--port-file", type=Path, required=True)
    cloud.add_argument("--embedder", choices=["hash", "minilm"], default="minilm")
    cloud.add_argument("--deadline", type=float, default=5.0)
    cloud.add_argument(
        "--probe-shortlist", type=int, default=CloudQueryConfig().probe_shortlist, help="0 = no probes (stage 2 off)"
    )
    cloud.set_defaults(func=run_cloud)
    edge = roles.add_parser("edge")
    edge.add_argument("--edge-id", required=True)
    edge.add_argument("--data-dir", type=Path, required=True)
    edge.add_argument("--docs", type=Path, required=True)
    edge.add_argument("--cloud", required=True)
    edge.add_argument("--token-file", type=Path, required=True)
    edge.add_argument("--port-file", type=Path, required=True)
    edge.add_argument("--embedder", choices=["hash", "minilm"], default="minilm")
    edge.set_defaults(func=run_edge)
    host = roles.add_parser("host")
    host.add_argument("--edge-ids", required=True)
    host.add_argument("--work", type=Path, required=True)
    host.add_argument("--docs", type=Path, required=True)
    host.add_argument("--cloud", required=True)
    host.add_argument("--embedder", choices=["hash", "minilm"], default="minilm")
    host.set_defaults(func=run_host)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
