"""Benchmark: the non-LLM overhead of a cross-edge query with N real edge processes on loopback.

    python -m benchmarks.cross_edge --edges 4,16 --queries 100 [--embedder minilm|hash] [--edges-per-host K]
        [--probe-shortlist N]

A cloud process and N edge processes (the real servers and sessions; a scripted LLM so the language
model's time is excluded) are started on loopback. The bundle's documents are dealt round-robin to the
N edges (``--edges-per-host K``: K edges per process over one shared embedder, as in the simulation, which
is how 64 edges fit in memory). Each question is sent to the cloud's GlobalQuery with top-k = 1 (the paper)
and top-k = N (a fan-out to every edge). Printed per (N, k), p50/p95 in ms: summary match, fan-out, edge retrieval,
transfers, and the overhead = client wall time minus the cloud LLM's time; plus bytes per query. With two-stage
routing (the cloud's default; ``--probe-shortlist 0`` turns it off) the probes' time is its own phase (``probe``):
run both to see what stage 2 adds. ``--asker-vectors`` sends each question with the embeddings of it and its
names, as an edge escalating its own question does (it computed them for its local retrieval, before the timed
call); without it the client is an app and the cloud embeds the question.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc

from benchmarks.network_node import embedder
from shared.core.query_vectors import to_send
from shared.core.question_terms import question_terms
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport import serde
from shared.transport.grpc_transport import auth_metadata
from shared.transport.secret_file import write_secret
from simulation.bundle import load_questions
from simulation.hosts import host_groups
from simulation.machine import machine_facts
from simulation.metrics import percentile

PHASES = ("summary_match", "probe", "fan_out", "edge_retrieval", "transfers", "overhead")
BENCH_USER = "bench-client"


def deal_documents(docs: Path, n_edges: int, out: Path) -> list[str]:
    edges = [f"e{i:02d}" for i in range(n_edges)]
    rows = [json.loads(line) for line in docs.read_text(encoding="utf-8").splitlines() if line.strip()]
    with out.open("w", encoding="utf-8") as f:
        for i, row in enumerate(sorted(rows, key=lambda r: r["doc_id"])):
            f.write(json.dumps({**row, "edge_id": edges[i % n_edges]}) + "\n")
    return edges


def wait_port(path: Path, proc: subprocess.Popen[bytes], timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            return int(path.read_text().strip())
        if proc.poll() is not None:
            raise SystemExit(f"a benchmark node exited early with code {proc.returncode}; see its log beside {path}")
        time.sleep(0.1)
    raise SystemExit(f"no port file {path} after {timeout} s")


def node(args: list[str], log: Path, threads: int) -> subprocess.Popen[bytes]:
    # Every edge is a device of its own in a deployment; on one test machine N edges share its cores, and
    # N thread pools spinning on 2 cores collapse. One thread per edge process keeps them from fighting.
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}
    return subprocess.Popen(
        [sys.executable, "-m", "benchmarks.network_node", *args],
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        env=env,
    )


async def wait_edges(address: str, metadata: Any, n: int, timeout: float) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = cloud_pb2_grpc.CloudStub(channel)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reply = await stub.ListEdges(cloud_pb2.ListEdgesRequest(), metadata=metadata)
            ready = [e for e in reply.edges if e.connected and e.summaries > 0]
            if len(ready) >= n:
                return
            await asyncio.sleep(0.5)
    raise SystemExit(f"not all {n} edges connected and published summaries within {timeout} s")


def asker_vectors(questions: list[str], kind: str) -> dict[str, cloud_pb2.QueryVectors]:
    """What an escalating edge sends with each question: its embeddings of the question and its names."""
    model = embedder(kind)
    out = {}
    for q in questions:
        texts = [q, *question_terms(q)[0]]
        msg = serde.vectors_to_proto(to_send(model, texts, model.embed(texts)))
        if msg is not None:
            out[q] = msg
    return out


async def measure(
    address: str, metadata: Any, questions: list[str], k: int, vectors: dict[str, cloud_pb2.QueryVectors]
) -> dict[str, Any]:
    samples: dict[str, list[float]] = {p: [] for p in PHASES}
    sent: list[int] = []
    received: list[int] = []
    failed = 0
    async with grpc.aio.insecure_channel(address) as channel:
        stub = cloud_pb2_grpc.CloudStub(channel)
        for q in questions[:2]:  # warm-up: connections, caches
            await stub.GlobalQuery(cloud_pb2.GlobalQueryRequest(question=q, top_k=k, top_m=k), metadata=metadata)
        for q in questions:
            request = cloud_pb2.GlobalQueryRequest(question=q, top_k=k, top_m=k, vectors=vectors.get(q))
            started = time.perf_counter()
            reply = await stub.GlobalQuery(request, metadata=metadata)
            wall = time.perf_counter() - started
            t = reply.timings.seconds
            for phase in PHASES[:-1]:
                samples[phase].append(t.get(phase, 0.0) * 1000)
            samples["overhead"].append((wall - t.get("cloud_generation", 0.0)) * 1000)
            sent.append(reply.bytes_received)
            received.append(request.ByteSize() + reply.ByteSize())
            failed += len(reply.edges_failed)
    return {
        "k": k,
        "queries": len(questions),
        "edges_failed": failed,
        **{f"{p}_p50_ms": round(percentile(v, 50), 2) for p, v in samples.items()},
        **{f"{p}_p95_ms": round(percentile(v, 95), 2) for p, v in samples.items()},
        "edge_bytes_per_query": round(sum(sent) / len(sent)),
        "client_bytes_per_query": round(sum(received) / len(received)),
    }


def run(n_edges: int, args: argparse.Namespace, work: Path) -> list[dict[str, Any]]:
    work.mkdir(parents=True)
    edges = deal_documents(args.bench / "docs.jsonl", n_edges, work / "docs.jsonl")
    tokens = work / "tokens"
    write_secret(
        tokens,
        "".join(f"edge {e} bench-token-{e}-0123456789\n" for e in edges)
        + f"admin {BENCH_USER} bench-token-{BENCH_USER}-0123456789\n",
    )
    procs: list[subprocess.Popen[bytes]] = []
    try:
        cloud_args = ["cloud", "--tokens", str(tokens), "--port-file", str(work / "cloud.port")]
        cloud_args += ["--embedder", args.embedder, "--probe-shortlist", str(args.probe_shortlist)]
        cloud = node(
            cloud_args,
            work / "cloud.log",
            threads=2,
        )
        procs.append(cloud)
        address = f"127.0.0.1:{wait_port(work / 'cloud.port', cloud, 120)}"
        for e in edges:
            write_secret(work / f"{e}.token", f"bench-token-{e}-0123456789")
        procs += start_edges(edges, args, work, address)
        metadata = auth_metadata(BENCH_USER, f"bench-token-{BENCH_USER}-0123456789")
        print(f"[{n_edges} edges] starting and indexing (scripted SLM) ...", file=sys.stderr)
        asyncio.run(wait_edges(address, metadata, n_edges, 900))
        questions = [q.question for q in load_questions(args.bench)][: args.queries]
        vectors = asker_vectors(questions, args.embedder) if args.asker_vectors else {}
        rows = []
        for k in sorted({1, n_edges}):
            print(f"[{n_edges} edges] measuring top-k={k} over {len(questions)} questions ...", file=sys.stderr)
            rows.append({"edges": n_edges, **asyncio.run(measure(address, metadata, questions, k, vectors))})
            print(json.dumps(rows[-1]), file=sys.stderr)
        return rows
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


def start_edges(edges: list[str], args: argparse.Namespace, work: Path, address: str) -> list[subprocess.Popen[bytes]]:
    """One process per edge, or hosts of ``--edges-per-host`` edges sharing one embedder (as the simulation)."""
    common = ["--docs", str(work / "docs.jsonl"), "--cloud", address, "--embedder", args.embedder]
    if args.edges_per_host > 1:
        return [
            node(["host", "--edge-ids", ",".join(group), "--work", str(work), *common], work / f"host-{i}.log", 1)
            for i, group in enumerate(host_groups(edges, args.edges_per_host))
        ]
    procs = []
    for e in edges:
        files = [
            "--data-dir",
            str(work / e),
            "--token-file",
            str(work / f"{e}.token"),
            "--port-file",
            str(work / f"{e}.port"),
        ]
        procs.append(node(["edge", "--edge-id", e, *files, *common], work / f"{e}.log", threads=1))
    return procs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, default=Path("simulation/bundles/multihop4"))
    parser.add_argument("--edges", default="4,16", help="comma-separated edge counts")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--embedder", choices=["minilm", "hash"], default="minilm")
    parser.add_argument("--edges-per-host", type=int, default=1, help="edges per process sharing one embedder")
    parser.add_argument("--probe-shortlist", type=int, default=4, help="edges probed per question (0 = no probes)")
    parser.add_argument(
        "--asker-vectors", action="store_true", help="send the question's and its names' embeddings, as an edge does"
    )
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="dgrag-xedge-") as tmp:
        for n in [int(x) for x in args.edges.split(",")]:
            rows += run(n, args, Path(tmp) / f"n{n}")
    header = ["edges", "k", *[f"{p}_p{q}_ms" for p in PHASES for q in (50, 95)], "edge_bytes_per_query"]
    print(machine_facts().markdown())
    print(" | ".join(header))
    for row in rows:
        print(" | ".join(str(row[h]) for h in header))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
