"""A benchmark network on loopback: ``dgrag cloud serve`` (the bundled SLM as its LLM) and one ``dgrag edge
serve`` per edge of a bundle, on the simulation's cached indexes, each edge under the privacy level chosen for it;
an app credential ("app-attacker") for the attacks. Used by benchmarks.extraction and benchmarks.membership."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from shared.config import EdgeConfig
from shared.transport.grpc_transport import auth_metadata
from shared.transport.secret_file import write_secret
from simulation.bundle import load_edges
from simulation.indexing import build_index, docs_by_edge, working_copy
from simulation.processes import Server, stop_all
from simulation.servers import edge_launch, start_cloud, wait_synced

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
    work: Path,
    bench: Path,
    level_of: Callable[[str], str],
    answers: str,
    env: dict[str, str],
    cloud_env: dict[str, str] | None = None,
) -> Iterator[Network]:
    """The cloud and every edge of ``bench`` running, each edge under ``level_of(edge)`` and ``answers``;
    ``cloud_env``: settings of the cloud alone (an edge refuses a section it does not have)."""
    edge_ids = load_edges(bench)
    rows = docs_by_edge(bench / "docs.jsonl")
    tokens = {e: secrets.token_urlsafe(24) for e in [*edge_ids, APP, OPERATOR]}
    roles = {APP: "app", OPERATOR: "admin"}
    write_secret(work / "tokens", "".join(f"{roles.get(e, 'edge')} {e} {t}\n" for e, t in tokens.items()))
    cloud = start_cloud(
        work, None, {**env, **(cloud_env or {})}, "127.0.0.1", routing_shown=False
    )  # as a deployment: the attacker's view
    servers: list[Server] = [cloud]
    try:
        cloud.wait_ready()
        edges = {}
        for e in edge_ids:
            built = build_index(bench, e, rows.get(e, []), EdgeConfig(), Path(".dgrag/sim-cache"), env, None)
            data_dir = working_copy(built, work / "edges")
            launch = edge_launch(work, e, data_dir, cloud.address, tokens[e])
            policy = {"DGRAG__PRIVACY__LEVEL": level_of(e), "DGRAG__PRIVACY__ANSWERS": answers}
            edge_env = {**env, **launch.settings, **policy, "DGRAG__PRIVACY__DOC_IDS": "opaque"}  # the default
            edges[e] = Server(e, ["edge", "serve", "--data-dir", str(data_dir)], work, edge_env)
            servers.append(edges[e])
        for server in edges.values():
            server.wait_ready()
        # as the operator sees them: a summaries_only edge is named to no app
        wait_synced(cloud.address, edge_ids, auth_metadata(OPERATOR, tokens[OPERATOR]))
        yield Network(cloud, edges, tokens)
    finally:
        stop_all(reversed(servers))
