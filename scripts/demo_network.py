"""The demo: two edges and a cloud on this machine, the cloud LLM behind an OpenAI-compatible server.

    .venv/bin/python scripts/demo_network.py [--workdir .dgrag/demo]

Indexes the business and technology articles of the bundled MultiHop-RAG sample as two edges, starts
llama-cpp-python's OpenAI-compatible server with the bundled SmolLM2 for the cloud LLM, a cloud (`dgrag
cloud serve`, its [llm] backend = "openai"), and the two edges (`dgrag edge serve`). Then asks the business
edge one question about its own articles and one about technology. Prints each edge's document count,
both answers with the gate's decision, where the cloud routed an escalated question (the edge whose
summary matches it best: business articles also cover OpenAI, so that may be the business edge itself)
and the sources, and stops everything.

An edge counts as indexed only when its ingest finished: a marker written last records the digest of its
documents, models and construction settings (simulation.index_cache). A run that was interrupted or
failed, or whose inputs changed, indexes that edge again; a failed ingest stops the demo with its log.
The edges serve a fresh copy of their index, so serving never alters what was built.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import grpc

from shared.config import EdgeConfig
from shared.errors import DgragError
from shared.grpc_auth import bearer_metadata
from shared.models.cpu import prepare_cpu
from shared.models.locate import bundled_slm_path
from shared.proto.dgrag.v1 import edge_pb2, edge_pb2_grpc
from simulation.credentials import api_token_file, write_api_tokens
from simulation.index_cache import index_location, is_complete
from simulation.indexing import build_index, docs_by_edge, working_copy
from simulation.processes import Server, dgrag_command

ROOT = Path(__file__).resolve().parent.parent
BUNDLE = ROOT / "simulation" / "bundles" / "multihop4"
EDGES = ("business", "technology")
QUESTIONS = {
    "business": "What did the business articles report about interest rates and the Federal Reserve?",
    "technology": "What did the technology articles report about OpenAI and Sam Altman?",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def indexed_edges(work: Path, env: dict[str, str]) -> dict[str, Path]:
    """A fresh serving copy of each demo edge's completed index, indexing the edges that have none."""
    rows = docs_by_edge(BUNDLE / "docs.jsonl")
    config = EdgeConfig()
    out: dict[str, Path] = {}
    for edge in EDGES:
        _, target = index_location(work / "index", BUNDLE, edge, rows[edge], config)
        if not is_complete(target):
            print(f"== indexing the {edge} edge ({len(rows[edge])} articles; a few minutes, once)", flush=True)
        built = build_index(BUNDLE, edge, rows[edge], config, work / "index", env, None)
        out[edge] = working_copy(built, work)
    return out


def edge_documents(address: str, api_token: str) -> int:
    """How many documents the running edge at ``address`` serves."""
    with grpc.insecure_channel(address) as channel:
        reply = edge_pb2_grpc.EdgeStub(channel).Stats(
            edge_pb2.StatsRequest(), metadata=bearer_metadata(api_token), timeout=30
        )
    return int(reply.documents)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", type=Path, default=ROOT / ".dgrag" / "demo")
    args = parser.parse_args()
    work: Path = args.workdir
    work.mkdir(parents=True, exist_ok=True)
    prepare_cpu()  # the children inherit it: idle model threads sleep instead of spinning against each other
    env = {k: v for k, v in os.environ.items() if not k.startswith("DGRAG__")} | {"HF_HUB_OFFLINE": "1"}
    try:
        data_dirs = indexed_edges(work, env)
    except DgragError as exc:
        print(f"demo: {exc}", file=sys.stderr)
        print("demo: stopped; fix the cause above and run the demo again (finished edges are kept)", file=sys.stderr)
        return 1
    tokens = {e: secrets.token_urlsafe(24) for e in EDGES}
    (work / "tokens").write_text("".join(f"edge {e} {t}\n" for e, t in tokens.items()))
    api_tokens = write_api_tokens(work, list(EDGES))
    llm_port = free_port()
    llm = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(bundled_slm_path()), "--port", str(llm_port),
         "--n_ctx", "4096", "--model_alias", "smollm2"],
        stdout=(work / "llm.log").open("wb"), stderr=subprocess.STDOUT, env=env,
    )  # fmt: skip
    servers: list[Server] = []
    try:
        edges = _serve(work, env, data_dirs, tokens, llm_port, servers)
        if edges is None:
            return 1
        for edge, server in edges.items():
            documents = edge_documents(server.address, api_tokens[edge])
            print(f"== the {edge} edge serves {documents} documents on {server.address}", flush=True)
            if documents == 0:
                print(f"demo: the {edge} edge holds no documents; remove {work / 'index'} and run again",
                      file=sys.stderr)  # fmt: skip
                return 1
        time.sleep(3)  # the edges' first summary sync
        return _ask_questions(work, env, edges["business"].address)
    finally:
        for server in servers:
            server.stop()
        llm.terminate()
        llm.wait(timeout=20)


def _serve(
    work: Path, env: dict[str, str], data_dirs: dict[str, Path], tokens: dict[str, str], llm_port: int,
    servers: list[Server],
) -> dict[str, Server] | None:
    """Start the cloud (its LLM behind the OpenAI-compatible server) and one process per edge, ready."""
    (work / "cloud.toml").write_text(
        f'tokens_file = "{work / "tokens"}"\nport = 0\n'
        f'[llm]\nbackend = "openai"\nbase_url = "http://127.0.0.1:{llm_port}/v1"\nmodel = "smollm2"\n'
        'json_mode = "json_object"\n'
    )
    cloud = Server("cloud", ["cloud", "serve", "--config", str(work / "cloud.toml")], work, env)
    servers.append(cloud)
    cloud.wait_ready()
    print(f"== cloud on {cloud.address}; cloud LLM: OpenAI-compatible server on port {llm_port}", flush=True)
    edges: dict[str, Server] = {}
    for edge in EDGES:
        edge_env = env | {
            "DGRAG__EDGE_ID": edge,
            "DGRAG__SERVER__PORT": "0",
            "DGRAG__CLOUD__ADDRESS": cloud.address,
            "DGRAG_EDGE_TOKEN": tokens[edge],
            "DGRAG__SERVER__TOKEN_FILE": str(api_token_file(work, edge)),
        }
        edges[edge] = Server(edge, ["edge", "serve", "--data-dir", str(data_dirs[edge])], work, edge_env)
        servers.append(edges[edge])
    for server in edges.values():
        server.wait_ready()
    return edges


def _ask_questions(work: Path, env: dict[str, str], business: str) -> int:
    """Ask the business edge each demo question with `dgrag edge ask` and show what happened."""
    for about, question in QUESTIONS.items():
        print(f"\n== asked at the business edge, about {about}: {question}", flush=True)
        done = subprocess.run(
            [*dgrag_command(), "edge", "ask", "--server", business,
             "--token-file", str(api_token_file(work, "business")), "--json", question],
            capture_output=True, text=True, env=env, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            return 1
        _show(json.loads(done.stdout))
    return 0


def _show(trace: dict[str, Any]) -> None:
    cloud_part = trace.get("cloud") or {}
    print(f"answer:   {trace['answer']}")
    print(f"decision: {trace['decision']} (gate score {trace['gate']['score']:.2f}, "
          f"threshold {trace['gate']['threshold']:.2f})")  # fmt: skip
    if cloud_part:
        print(f"routed to: {cloud_part['edges_asked']} (replied: {cloud_part['edges_replied']})")
    print("sources:  " + ", ".join(f"{s.get('edge_id', 'business')}:{s['doc_id']}" for s in trace["sources"]))


if __name__ == "__main__":
    sys.exit(main())
