"""The demo: two edges and a cloud on this machine; the edges read with the small model, the cloud with the larger one.

    .venv/bin/python scripts/demo_network.py [--workdir .dgrag/demo] [--bundle simulation/bundles/multihop4]

Indexes the business and technology articles of the bundled MultiHop-RAG sample as two edges, starts a cloud
(`dgrag cloud serve`, reading with the larger packaged model that scripts/install.sh fetched, or with the bundled
SmolLM2 and a sentence saying so when it is missing) and the two edges (`dgrag edge serve`). Then asks the business
edge one question its own articles answer and one only the technology edge can (both chosen by a rule on the
bundle: demo_questions). Prints each edge's document count, then per question the decision, who answered, the
short answer beside the bundle's gold answer, the shown answer with its cited source and the sources, and stops
everything.

An edge counts as indexed only when its ingest finished: a marker written last records the digest of its
documents, models and construction settings (simulation.index_cache). A run that was interrupted or
failed, or whose inputs changed, indexes that edge again; a failed ingest stops the demo with its log.
The edges serve a fresh copy of their index, so serving never alters what was built.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import grpc

from cloud_server.cloud_model import missing_model_sentence
from shared.config import CLOUD_MODEL, EdgeConfig
from shared.core.errors import DgragError
from shared.core.shown import shown_of
from shared.core.text import occurs_in
from shared.core.trace import AnswerTrace
from shared.models.cpu import prepare_cpu
from shared.models.packaged import is_fetched
from shared.proto.dgrag.v1 import edge_pb2, edge_pb2_grpc
from shared.reading.plan import Shape, shape_of
from shared.transport.grpc_auth import bearer_metadata
from shared.transport.secret_file import write_secret
from simulation.credentials import api_token_file, write_api_tokens
from simulation.index_cache import index_location, is_complete
from simulation.indexing import build_index, docs_by_edge, working_copy
from simulation.processes import Server, dgrag_command

ROOT = Path(__file__).resolve().parent.parent
BUNDLE = ROOT / "simulation" / "bundles" / "multihop4"
EDGES = ("business", "technology")
ASKED_AT = "business"


def demo_questions(bundle: Path = BUNDLE) -> dict[str, dict[str, Any]]:
    """The two questions the demo asks the business edge, chosen by a rule on the bundle, not by how they are
    answered: the bundle's first question naming one entity as its answer whose evidence includes business
    articles and whose answer the business documents hold; and the first such question whose evidence lies on the
    technology edge alone and whose answer occurs in no business document, so the business edge cannot answer it
    from what it holds."""
    rows = [json.loads(line) for line in (bundle / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line]
    docs = [json.loads(line) for line in (bundle / "docs.jsonl").read_text(encoding="utf-8").splitlines() if line]
    held_here = " ".join(d["text"] for d in docs if d["edge_id"] == ASKED_AT)
    chosen: dict[str, dict[str, Any]] = {}
    for edge in EDGES:
        for row in rows:
            if shape_of(row["question"]).shape != Shape.ENTITY:
                continue
            here = edge == ASKED_AT
            if (here and edge not in row["home_edges"]) or (not here and row["home_edges"] != [edge]):
                continue
            if occurs_in(row["answer"], held_here) != here:
                continue
            chosen[edge] = row
            break
    return chosen


def indexed_edges(work: Path, env: dict[str, str], bundle: Path = BUNDLE) -> dict[str, Path]:
    """A fresh serving copy of each demo edge's completed index, indexing the edges that have none."""
    rows = docs_by_edge(bundle / "docs.jsonl")
    config = EdgeConfig()
    out: dict[str, Path] = {}
    for edge in EDGES:
        _, target = index_location(work / "index", bundle, edge, rows[edge], config)
        if not is_complete(target):
            print(f"== indexing the {edge} edge ({len(rows[edge])} articles; a few minutes, once)", flush=True)
        built = build_index(bundle, edge, rows[edge], config, work / "index", env, None)
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
    parser.add_argument("--bundle", type=Path, default=BUNDLE, help="a bundle with business and technology edges")
    args = parser.parse_args()
    work: Path = args.workdir
    work.mkdir(parents=True, exist_ok=True)
    prepare_cpu()  # the children inherit it: idle model threads sleep instead of spinning against each other
    env = {k: v for k, v in os.environ.items() if not k.startswith("DGRAG__")} | {"HF_HUB_OFFLINE": "1"}
    try:
        data_dirs = indexed_edges(work, env, args.bundle)
    except DgragError as exc:
        print(f"demo: {exc}", file=sys.stderr)
        print("demo: stopped; fix the cause above and run the demo again (finished edges are kept)", file=sys.stderr)
        return 1
    tokens = {e: secrets.token_urlsafe(24) for e in EDGES}
    write_secret((work / "tokens"), "".join(f"edge {e} {t}\n" for e, t in tokens.items()))
    api_tokens = write_api_tokens(work, list(EDGES))
    servers: list[Server] = []
    try:
        edges = _serve(work, env, data_dirs, tokens, servers)
        if edges is None:
            return 1
        for edge, server in edges.items():
            documents = edge_documents(server.address, api_tokens[edge])
            print(f"== the {edge} edge serves {documents} documents on {server.address}", flush=True)
            if documents == 0:
                print(
                    f"demo: the {edge} edge holds no documents; remove {work / 'index'} and run again", file=sys.stderr
                )
                return 1
        time.sleep(3)  # the edges' first summary sync
        return _ask_questions(work, env, edges["business"].address, args.bundle)
    finally:
        for server in servers:
            server.stop()


def _serve(
    work: Path,
    env: dict[str, str],
    data_dirs: dict[str, Path],
    tokens: dict[str, str],
    servers: list[Server],
) -> dict[str, Server] | None:
    """Start the cloud (the larger model in its process) and one process per edge, ready."""
    (work / "cloud.toml").write_text(f'tokens_file = "{work / "tokens"}"\nport = 0\n')
    cloud = Server("cloud", ["cloud", "serve", "--config", str(work / "cloud.toml")], work, env)
    servers.append(cloud)
    cloud.wait_ready()
    model = CLOUD_MODEL if is_fetched(CLOUD_MODEL) else f"SmolLM2-135M. {missing_model_sentence(CLOUD_MODEL)}"
    print(f"== cloud on {cloud.address}; it reads with {model}", flush=True)
    edges: dict[str, Server] = {}
    for edge in EDGES:
        edge_env = env | {
            "DGRAG__EDGE_ID": edge,
            "DGRAG__SERVER__PORT": "0",
            "DGRAG__CLOUD__ADDRESS": cloud.address,
            "DGRAG_EDGE_TOKEN": tokens[edge],
            "DGRAG__SERVER__TOKEN_FILE": str(api_token_file(work, edge)),
            # the owner of both demo edges lets their bundle ids leave (they are public), so a reader can look up
            # the article behind each source; a real device keeps the default, opaque ids
            "DGRAG__PRIVACY__DOC_IDS": "names",
        }
        edges[edge] = Server(edge, ["edge", "serve", "--data-dir", str(data_dirs[edge])], work, edge_env)
        servers.append(edges[edge])
    for server in edges.values():
        server.wait_ready()
    return edges


def _ask_questions(work: Path, env: dict[str, str], business: str, bundle: Path) -> int:
    """Ask the business edge each demo question with `dgrag edge ask` and show what happened."""
    for about, row in demo_questions(bundle).items():
        question = row["question"]
        print(f"\n== asked at the business edge, about {about}: {question}", flush=True)
        done = subprocess.run(
            [
                *dgrag_command(),
                "edge",
                "ask",
                "--server",
                business,
                "--token-file",
                str(api_token_file(work, "business")),
                "--json",
                question,
            ],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            return 1
        _show(json.loads(done.stdout), row, titles(bundle))
    return 0


def titles(bundle: Path) -> dict[str, str]:
    """Each bundle document's title by its id, as a person reads it (HTML entities decoded)."""
    rows = [json.loads(line) for line in (bundle / "docs.jsonl").read_text(encoding="utf-8").splitlines() if line]
    return {r["doc_id"]: html.unescape(r.get("title") or r["doc_id"]) for r in rows}  # bundles carry &#039;


def _show(trace: dict[str, Any], row: dict[str, Any], named: dict[str, str]) -> None:
    cloud_part = trace.get("cloud") or {}
    gate = trace.get("gate")
    if gate is None:  # the evidence check came first and found another edge clearly stronger
        print(f"decision: {trace['decision']} (another edge matches clearly better; this edge's model did not read)")
    else:
        print(f"decision: {trace['decision']} (gate score {gate['score']:.2f}, threshold {gate['threshold']:.2f})")
    if trace.get("note"):
        print(f"note:     {trace['note']}")
    if cloud_part:
        cited = dict.fromkeys(s.get("edge_id") or ASKED_AT for s in trace.get("sources") or [])
        print(f"answered by: the cloud, citing the {', '.join(cited) or 'no'} edge(s)")
    else:
        print(f"answered by: the {ASKED_AT} edge, from its own documents")
    shown = shown_of(AnswerTrace.from_dict(trace))
    print(f"short answer: {shown.short or '(none: no verdict)'}   (the bundle's gold answer: {row['answer']})")
    print(f"confidence: {shown.sureness} ({shown.probability:.0%})")
    print(f"answer:   {shown.text}")
    print("sources:")
    for doc_id, edge in dict.fromkeys((s["doc_id"], s.get("edge_id") or ASKED_AT) for s in trace["sources"]):
        gold = " (gold evidence)" if doc_id in row["evidence_doc_ids"] else ""
        print(f"  {edge}:{doc_id}{gold}  {named.get(doc_id, '')[:90]}")


if __name__ == "__main__":
    sys.exit(main())
