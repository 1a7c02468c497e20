"""Benchmark: the cloud's routing at 1,000 edges, without language models.

    python -m benchmarks.routing_scale --edges 1000 --summaries-per-edge 6 --queries 200 [--embedder minilm|hash]

Starts the real cloud (gRPC server, auth, summary index, global query; a scripted LLM) in this process, loads
synthetic summaries for N edges into its summary index (each edge's cards are sentences of the bundle's
documents, dealt deterministically, so their vectors are real MiniLM embeddings of real text), attaches a live
session per edge that answers retrieval requests at once with a fixed piece of knowledge, and then asks the
bundle's questions over gRPC with an app credential:

- MatchSummaries (top-m = 5): p50/p95 of the RPC, and of the index search alone (question already embedded);
- GlobalQuery at top-k = 1, 4, 8: p50/p95 of the cloud's non-LLM overhead (wall time minus its generation).

Prints the cloud process's RSS before and after loading, and the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import resource
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from benchmarks.scripted_models import scripted_generator
from cloud_server.api import CloudClient, CloudParts, TokenBook, build_cloud, serve_cloud
from shared.config import CloudConfig, CloudQueryConfig, EmbedderConfig
from shared.core.knowledge import EdgeKnowledge, KnowledgeChunk, SummaryCard
from shared.core.model_api import Embedder
from shared.core.text import sentences
from shared.models.factory import build_embedder
from shared.models.fakes import HashEmbedder
from shared.models.tokenizer import WordPieceTokenizer
from shared.transport.secret_file import write_secret
from simulation.bundle import load_questions
from simulation.machine import machine_facts
from simulation.metrics import percentile

APP = "bench-app"
TOP_KS = (1, 4, 8)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def synthetic_cards(bench: Path, n_edges: int, per_edge: int, seed: int) -> dict[str, list[SummaryCard]]:
    """``per_edge`` cards for each of ``n_edges`` edges, each a few sentences of the bundle's documents."""
    texts = [json.loads(x)["text"] for x in (bench / "docs.jsonl").read_text(encoding="utf-8").splitlines() if x]
    pool = [s.strip() for t in texts for s in sentences(t) if len(s.split()) >= 6]
    rng = random.Random(seed)
    width = len(str(n_edges - 1))
    out: dict[str, list[SummaryCard]] = {}
    for i in range(n_edges):
        edge = f"e{i:0{width}d}"
        out[edge] = [SummaryCard(f"{edge}/sg-{j}", 1, " ".join(rng.sample(pool, 3)), (), 5, 4) for j in range(per_edge)]
    return out


async def answer_retrievals(parts: CloudParts, edge_id: str, stop: asyncio.Event) -> None:
    """A live session for ``edge_id`` that answers every retrieval request at once."""
    session = parts.registry.attach(edge_id)
    knowledge = EdgeKnowledge(edge_id, (), (), (KnowledgeChunk(f"{edge_id}-doc", 1, "Some retrieved text.", 0.5, 4),))
    while not stop.is_set():
        call = await session.outbox.get()
        if call is None:
            return
        parts.registry.resolve(session, call.request_id, knowledge, "")


def _embedder(kind: str) -> Embedder:
    return HashEmbedder(384) if kind == "hash" else build_embedder(EmbedderConfig())


@contextlib.contextmanager
def _tokens_file(edges: list[str]) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tokens"
        write_secret(
            path, f"app {APP} app-token-0123456789\n" + "".join(f"edge {e} tok-{e}-0123456789\n" for e in edges)
        )
        yield path


async def run(args: argparse.Namespace) -> dict[str, object]:
    embedder = _embedder(args.embedder)
    # one app asks as fast as the cloud answers: no per-credential rate limit (calls_per_minute = 0)
    query = CloudQueryConfig(deadline_s=5.0, max_top_k=64)
    config = CloudConfig(port=0, heartbeat_interval_s=3600.0, calls_per_minute=0, query=query)
    parts = build_cloud(config, embedder, scripted_generator(), WordPieceTokenizer())
    cards = synthetic_cards(args.bench, args.edges, args.summaries_per_edge, args.seed)
    base_mb = rss_mb()
    started = time.perf_counter()
    for edge, edge_cards in cards.items():
        parts.index.replace_edge(edge, edge_cards)
    load_s = time.perf_counter() - started
    loaded_mb = rss_mb()
    questions = [q.question for q in load_questions(args.bench)][: args.queries]
    stop = asyncio.Event()
    with _tokens_file(list(cards)) as tokens:
        ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        server = asyncio.create_task(serve_cloud(config, parts, TokenBook.load(tokens), ready.set_result, stop))
        port = await ready
        sessions = [asyncio.create_task(answer_retrievals(parts, e, stop)) for e in cards]
        try:
            out = await _measure(parts, embedder, f"127.0.0.1:{port}", questions)
        finally:
            stop.set()
            for edge in cards:
                parts.registry.detach(parts.registry.attach(edge))
            await asyncio.gather(server, *sessions, return_exceptions=True)
    summaries = sum(len(c) for c in cards.values())
    return {
        "edges": args.edges,
        "summaries": summaries,
        "load_s": round(load_s, 1),
        "rss_mb_before": round(base_mb),
        "rss_mb_loaded": round(loaded_mb),
        **out,
    }


async def _measure(parts: CloudParts, embedder: Embedder, address: str, questions: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    async with CloudClient(address, APP, "app-token-0123456789", timeout_s=60) as client:
        await client.match_summaries(questions[0])  # warm up
        rpc, search = [], []
        for q in questions:
            t = time.perf_counter()
            await client.match_summaries(q, top_m=5)
            rpc.append((time.perf_counter() - t) * 1000)
            vector = np.asarray(embedder.embed([q]), dtype=np.float32)[0]
            t = time.perf_counter()
            parts.index.search(vector, 5)
            search.append((time.perf_counter() - t) * 1000)
        out["match_rpc_ms"] = _p(rpc)
        out["match_search_ms"] = _p(search)
        for k in TOP_KS:
            overhead = []
            for q in questions:
                t = time.perf_counter()
                answer = await client.global_query(q, top_m=max(5, k), top_k=k)
                wall = (time.perf_counter() - t) * 1000
                overhead.append(wall - answer.timings.get("cloud_generation", 0.0) * 1000)
            out[f"global_query_k{k}_overhead_ms"] = _p(overhead)
    return out


def _p(values: list[float]) -> dict[str, float]:
    return {"p50": round(percentile(values, 50), 2), "p95": round(percentile(values, 95), 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, default=Path("simulation/bundles/multihop4"))
    parser.add_argument("--edges", type=int, default=1000)
    parser.add_argument("--summaries-per-edge", type=int, default=6)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--embedder", choices=["minilm", "hash"], default="minilm")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    result = asyncio.run(run(args))
    print(json.dumps({**result, "machine": machine_facts({}).as_dict()}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
