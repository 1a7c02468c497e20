"""A benchmark network on loopback: ``dgrag cloud serve`` (the bundled SLM as its LLM) and one ``dgrag edge
serve`` per edge of a bundle, on the simulation's cached indexes, each edge under the privacy level chosen for it;
an app credential ("app-attacker") for the attacks. Used by benchmarks.extraction and benchmarks.membership."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc

from shared.config import EdgeConfig
from shared.grpc_transport import auth_metadata
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.secret_file import write_secret
from simulation.bundle import load_edges
from simulation.indexing import build_index, docs_by_edge, working_copy
from simulation.processes import Server, stop_all

APP = "app-attacker"
OPERATOR = "ops"


def same_level(level: str) -> Callable[[str], str]:
    """Every edge under ``level``."""
    return lambda _edge: level


@dataclass(frozen=True)
class Network:
    cloud: Server
    edges: dict[str, Server]
    tokens: dict[str, str]


@contextmanager
def network(
    work: Path, bench: Path, level_of: Callable[[str], str], answers: str, env: dict[str, str]
) -> Iterator[Network]:
    """The cloud and every edge of ``bench`` running, each edge under ``level_of(edge)`` and ``answers``."""
    edge_ids = load_edges(bench)
    rows = docs_by_edge(bench / "docs.jsonl")
    tokens = {e: secrets.token_urlsafe(24) for e in [*edge_ids, APP, OPERATOR]}
    roles = {APP: "app", OPERATOR: "admin"}
    write_secret(work / "tokens", "".join(f"{roles.get(e, 'edge')} {e} {t}\n" for e, t in tokens.items()))
    cloud_env = {**env, "DGRAG__PORT": "0", "DGRAG__TOKENS_FILE": str(work / "tokens")}
    cloud = Server("cloud", ["cloud", "serve"], work, cloud_env)
    servers: list[Server] = [cloud]
    try:
        cloud.wait_ready()
        edges = {}
        for e in edge_ids:
            built = build_index(bench, e, rows.get(e, []), EdgeConfig(), Path(".dgrag/sim-cache"), env, None)
            data_dir = working_copy(built, work / "edges")
            token_file = work / f"{e}.cloud-token"
            write_secret(token_file, tokens[e])
            edge_env = {
                **env,
                "DGRAG__EDGE_ID": e,
                "DGRAG__SERVER__PORT": "0",
                "DGRAG__CLOUD__ADDRESS": cloud.address,
                "DGRAG__CLOUD__TOKEN_FILE": str(token_file),
                "DGRAG__PRIVACY__LEVEL": level_of(e),
                "DGRAG__PRIVACY__ANSWERS": answers,
            }
            edges[e] = Server(e, ["edge", "serve", "--data-dir", str(data_dir)], work, edge_env)
            servers.append(edges[e])
        for server in edges.values():
            server.wait_ready()
        _wait_synced(cloud.address, edge_ids, tokens)
        yield Network(cloud, edges, tokens)
    finally:
        stop_all(reversed(servers))


def _wait_synced(address: str, edges: Sequence[str], tokens: dict[str, str]) -> None:
    """Until every edge is connected and its summaries are in (as the operator sees it: a summaries_only edge
    is named to no app)."""
    with grpc.insecure_channel(address) as channel:
        stub = cloud_pb2_grpc.CloudStub(channel)
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            reply = stub.ListEdges(cloud_pb2.ListEdgesRequest(), metadata=auth_metadata(OPERATOR, tokens[OPERATOR]))
            if {e.edge_id for e in reply.edges if e.connected and e.summaries} >= set(edges):
                return
            time.sleep(1.0)
    raise RuntimeError(f"edges {sorted(edges)} did not all publish summaries within 600 s")
