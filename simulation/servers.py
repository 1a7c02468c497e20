"""The processes of a simulated network: the cloud's launch, each edge's launch settings, and what the run asks
the cloud about its edges (synced, and how far their claims were believed)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import grpc

from shared.core.addresses import is_loopback
from shared.core.errors import DgragError
from shared.proto.dgrag.v1 import cloud_pb2, cloud_pb2_grpc
from shared.transport.secret_file import write_secret
from simulation.credentials import api_token_file
from simulation.hosts import EdgeLaunch
from simulation.processes import Server

SYNC_TIMEOUT_S = 600.0


def start_cloud(
    work: Path, config_file: Path | None, env: dict[str, str], bind: str, port: int = 0, routing_shown: bool = True
) -> Server:
    """The cloud (simulation.cloud_process) on ``port`` (0: any free one). ``routing_shown``: askers see the
    routing (the rows record it; one researcher owns every edge), off for a benchmark of what an attacker sees."""
    cloud_env = {**env, "DGRAG__PORT": str(port), "DGRAG__HOST": bind, "DGRAG__TOKENS_FILE": str(work / "tokens")}
    args = (["--config", str(config_file)] if config_file else []) + (["--routing-shown"] if routing_shown else [])
    command = [sys.executable, "-m", "simulation.cloud_process"]
    return Server("cloud", args, work, cloud_env, host=bind, command=command)


def edge_launch(work: Path, edge_id: str, data_dir: Path, cloud: str, token: str) -> EdgeLaunch:
    settings = {
        "DGRAG__EDGE_ID": edge_id,
        "DGRAG__SERVER__PORT": "0",
        "DGRAG__SERVER__PAGE_PORT": "-1",  # no owner's page: the researcher reads the rows
        "DGRAG__SERVER__HOST": "127.0.0.1",
        "DGRAG__CLOUD__ADDRESS": cloud,
        # a benchmark's document ids are public (its gold evidence names them): sent as they are, so evidence
        # recall can be measured from the sources an answer cites
        "DGRAG__PRIVACY__DOC_IDS": "names",
        # a simulation across machines (Ray) runs on the researcher's own cluster network: plaintext, said so
        "DGRAG__CLOUD__INSECURE": "false" if not cloud or is_loopback(cloud) else "true",
        "DGRAG__CLOUD__PUBLISH_INTERVAL_S": "0.5",
        "DGRAG__SERVER__TOKEN_FILE": str(api_token_file(work, edge_id)),
    }
    if token:  # each edge's cloud token in a file of its own (the edges of a host share one environment)
        token_file = work / f"{edge_id}.cloud-token"
        write_secret(token_file, token)
        settings["DGRAG__CLOUD__TOKEN_FILE"] = str(token_file)
    return EdgeLaunch(edge_id, data_dir, settings)


def wait_synced(cloud: str, edges: list[str], metadata: Any) -> None:
    deadline = time.monotonic() + SYNC_TIMEOUT_S
    with grpc.insecure_channel(cloud) as channel:
        stub = cloud_pb2_grpc.CloudStub(channel)
        while time.monotonic() < deadline:
            reply = stub.ListEdges(cloud_pb2.ListEdgesRequest(), metadata=metadata, timeout=30)
            ready = {e.edge_id for e in reply.edges if e.connected and e.summaries > 0}
            if ready >= set(edges):
                return
            time.sleep(0.5)
    raise DgragError(f"edges {sorted(set(edges) - ready)} did not publish summaries within {SYNC_TIMEOUT_S:.0f} s")


def _edges(cloud: str, metadata: Any) -> list[Any]:
    """The cloud's list of the edges it has seen (ListEdges)."""
    with grpc.insecure_channel(cloud) as channel:
        reply = cloud_pb2_grpc.CloudStub(channel).ListEdges(cloud_pb2.ListEdgesRequest(), metadata=metadata, timeout=30)
    return list(reply.edges)


def edge_trust(cloud: str, metadata: Any) -> dict[str, dict[str, float]]:
    """How far the cloud believed each edge's claims by the end of the run (cloud_server.routing.claim_check)."""
    return {
        e.edge_id: {"trust": e.trust, "over_claim": e.over_claim, "checked": e.checked} for e in _edges(cloud, metadata)
    }


def held_counts(cloud: str, metadata: Any) -> dict[str, int]:
    """The summaries the cloud holds of each connected edge."""
    return {e.edge_id: e.summaries for e in _edges(cloud, metadata) if e.connected}
