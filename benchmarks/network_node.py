"""One cloud or edge process for network benchmarks: the real servers, with a scripted LLM.

    python -m benchmarks.network_node cloud --tokens FILE --port-file F [--embedder hash|minilm]
    python -m benchmarks.network_node edge --edge-id E --data-dir D --docs DOCS.jsonl --cloud HOST:PORT \
        --token-file F --port-file F [--embedder hash|minilm]

The edge ingests its documents (rows of DOCS.jsonl with its edge id) with the scripted SLM on first start.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from benchmarks.scripted_models import scripted_generator
from cloud_server.api import TokenBook, build_cloud, serve_cloud
from edge_node.api import Edge, EdgeModels, serve_edge
from shared.config import CloudConfig, CloudLinkConfig, CloudQueryConfig, EdgeConfig, EdgeServerConfig
from shared.models.base import Embedder
from shared.models.fakes import HashEmbedder
from shared.port_file import write_port_file
from shared.tokenizer import WordPieceTokenizer


def embedder(kind: str) -> Embedder:
    if kind == "hash":
        return HashEmbedder(384)
    from shared.config import EmbedderConfig
    from shared.models.factory import build_embedder

    return build_embedder(EmbedderConfig())


def run_cloud(args: argparse.Namespace) -> None:
    # the benchmark fans out to every edge (top_k = all, up to 64)
    config = CloudConfig(port=0, query=CloudQueryConfig(deadline_s=args.deadline, max_top_k=64, max_top_m=64))
    parts = build_cloud(config, embedder(args.embedder), scripted_generator(), WordPieceTokenizer())
    tokens = TokenBook.load(args.tokens)
    asyncio.run(serve_cloud(config, parts, tokens, on_ready=lambda port: write_port_file(args.port_file, port)))


def run_edge(args: argparse.Namespace) -> None:
    config = EdgeConfig(
        edge_id=args.edge_id,
        server=EdgeServerConfig(port=0),
        cloud=CloudLinkConfig(address=args.cloud, token_file=str(args.token_file), publish_interval_s=0.2),
    )
    models = EdgeModels(scripted_generator(), embedder(args.embedder), WordPieceTokenizer())
    with Edge.open(args.data_dir, config, models=models) as edge:
        if edge.stats(with_document_ids=False).documents == 0:
            edge.ingest([args.docs], bundle_edge=args.edge_id)
        asyncio.run(serve_edge(edge.config, edge.runtime, on_ready=lambda port: write_port_file(args.port_file, port)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    roles = parser.add_subparsers(dest="role", required=True)
    cloud = roles.add_parser("cloud")
    cloud.add_argument("--tokens", type=Path, required=True)
    cloud.add_argument("--port-file", type=Path, required=True)
    cloud.add_argument("--embedder", choices=["hash", "minilm"], default="minilm")
    cloud.add_argument("--deadline", type=float, default=5.0)
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
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
