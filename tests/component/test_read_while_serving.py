"""An owner reads a serving edge's store from another process: stats, summaries and the source of a cited id
answer beside the process that holds the data directory, as they would with the edge stopped."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from edge_node.api import Document, Edge, EdgeModels
from edge_node.policy.doc_id_key import doc_id_key
from edge_node.policy.privacy import outbound_doc_id
from shared.config import ChunkingConfig, EdgeConfig, PartitionConfig
from simulation.processes import dgrag_command

DOCS = [
    Document("acme-1", "Acme", "Acme Robotics is led by Dana Smith. Acme Robotics builds welding arms in Oslo."),
    Document("acme-2", "Oslo", "Dana Smith opened the Oslo Plant in 2021. The Oslo Plant supplies Nordic Steel."),
]


def _edge(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*dgrag_command(), "edge", *args], capture_output=True, text=True, timeout=120, check=False)


def test_stats_summaries_and_source_read_a_data_dir_another_process_holds(
    tmp_path: Path, edge_models: EdgeModels
) -> None:
    config = EdgeConfig(
        edge_id="edge-a",
        chunking=ChunkingConfig(chunk_tokens=60, overlap_tokens=8),
        partition=PartitionConfig(min_size=2, max_size=12),
    )
    data = tmp_path / "edge"
    with Edge.open(data, config, models=edge_models) as serving:  # holds the directory's lock, as `serve` does
        serving.insert(DOCS)
        stats = _edge("stats", "--data-dir", str(data), "--json")
        assert stats.returncode == 0, stats.stderr
        assert sorted(json.loads(stats.stdout)["document_ids"]) == ["acme-1", "acme-2"]
        summaries = _edge("summaries", "--data-dir", str(data), "--json")
        assert summaries.returncode == 0, summaries.stderr
        assert [s["id"] for s in json.loads(summaries.stdout)] == [r.id for r in serving.subgraphs()]
        cited = outbound_doc_id("acme-2", serving.config.privacy, "edge-a", doc_id_key(data))
        source = _edge("source", "--data-dir", str(data), cited)
        assert source.returncode == 0 and source.stdout.split() == ["acme-2"], source.stderr
        assert serving.stats().documents == 2
