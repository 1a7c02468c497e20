"""The facts of one simulation run that its report states beside the rows: each edge's index, storage and
traffic, the processes' peak memory, the settings, the code's provenance and the machine."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import grpc

from shared.config import CloudConfig, EdgeConfig
from shared.proto.dgrag.v1 import edge_pb2, edge_pb2_grpc
from shared.transport.grpc_auth import bearer_metadata
from simulation.ablation_settings import ablation_mode
from simulation.edge_parts import read_audit
from simulation.index_cache import CENTRAL
from simulation.indexing import BuiltIndex
from simulation.machine import machine_facts
from simulation.provenance import provenance

if TYPE_CHECKING:
    from simulation.runner import SimOptions


def run_info(
    opts: SimOptions,
    servers: dict[str, Any],
    api_tokens: dict[str, str],
    built: dict[str, BuiltIndex],
    central: BuiltIndex | None,
    cloud_config: CloudConfig,
    edge_config: EdgeConfig,
    edges: list[str],
) -> dict[str, Any]:
    def edge_info(edge_id: str, index: BuiltIndex) -> dict[str, Any]:
        with grpc.insecure_channel(servers[edge_id].address) as channel:
            stats = edge_pb2_grpc.EdgeStub(channel).Stats(
                edge_pb2.StatsRequest(), metadata=bearer_metadata(api_tokens[edge_id]), timeout=30
            )
        entries = read_audit(opts.out / "edges" / edge_id)
        return {
            "index_seconds": round(index.index_seconds, 2),
            "index_cached": index.cached,
            "index_peak_rss_bytes": index.peak_rss_bytes,
            "storage_bytes": stats.bytes_on_disk,
            "construction_bytes": sum(e.bytes for e in entries if e.is_construction),
            "query_bytes": sum(e.bytes for e in entries if not e.is_construction),
            "peak_rss_bytes": servers[edge_id].peak_rss_bytes(),
            "documents": stats.documents,
            "chunks": stats.chunks,
            "entities": stats.entities,
            "relations": stats.relations,
            "summaries": stats.summaries,
        }

    return {
        "bench": str(opts.bench),
        "modes": list(opts.modes) + [ablation_mode(a) for a in opts.ablations],
        "limit": opts.limit,
        "half": opts.half.name.lower() if opts.half is not None else "all",
        "seed": opts.seed,
        "top_m": cloud_config.query.top_m,
        "top_k": cloud_config.query.top_k,
        "edges": {e: edge_info(e, built[e]) for e in edges},
        "central": edge_info(CENTRAL, central) if central is not None else None,
        "cloud": {"peak_rss_bytes": servers["cloud"].peak_rss_bytes()},
        "hosts": {
            s.name: {"peak_rss_bytes": s.peak_rss_bytes(), "node": s.node}
            for k, s in servers.items()
            if k.startswith("host:")
        },
        "edges_per_host": opts.edges_per_host,
        "provenance": provenance(),
        "config": {"edge": dataclasses.asdict(edge_config), "cloud": dataclasses.asdict(cloud_config)},
        "machine": machine_facts({"slm_threads": str(edge_config.slm.n_threads or "all cores")}).as_dict(),
    }
