"""The public Python API of an edge (``edge_node.api.Edge``), with the scripted SLM and hash embeddings."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_node.api import Document, Edge, EdgeModels
from shared.config import ChunkingConfig, EdgeConfig, PartitionConfig
from shared.errors import ConfigError, DocumentNotFoundError, StoreError
from shared.models.fakes import HashEmbedder, ScriptedGenerator
from shared.tokenizer import RegexTokenizer
from tests.unit.fakes_edge import scripted_slm

ACME = [
    Document("acme-1", "Acme", "Acme Robotics is led by Dana Smith. Acme Robotics builds welding arms in Oslo."),
    Document("acme-2", "Oslo", "Dana Smith opened the Oslo Plant in 2021. The Oslo Plant supplies Nordic Steel."),
]


def _config() -> EdgeConfig:
    return EdgeConfig(
        edge_id="edge-a",
        chunking=ChunkingConfig(chunk_tokens=60, overlap_tokens=8),
        partition=PartitionConfig(min_size=2, max_size=12),
    )


def _models() -> EdgeModels:
    return EdgeModels(ScriptedGenerator(scripted_slm), HashEmbedder(32), RegexTokenizer())


def test_insert_query_stats_summaries_delete(tmp_path: Path) -> None:
    with Edge.open(tmp_path / "a", _config(), models=_models()) as edge:
        report = edge.insert(ACME)
        assert sorted(report.added) == ["acme-1", "acme-2"]
        assert edge.insert(ACME).unchanged == ["acme-1", "acme-2"], "unchanged text is not ingested again"
        stats = edge.stats()
        assert (stats.edge_id, stats.documents, sorted(stats.document_ids)) == ("edge-a", 2, ["acme-1", "acme-2"])
        assert stats.chunks >= 2 and stats.entities > 0
        cards = edge.summaries()
        assert cards and all(c.text for c in cards), "every subgraph is summarised"
        answer = edge.query("Who leads Acme Robotics?", mode="local")
        assert answer.decision in ("local", "escalate") and answer.local.retrieval.sources
        assert {s.doc_id for s in answer.sources} <= {"acme-1", "acme-2"}
        with pytest.raises(DocumentNotFoundError, match="no document"):
            edge.delete(["nope"])
        edge.delete(["acme-2"])
        assert edge.stats().document_ids == ["acme-1"]
        assert edge.audit() == [], "nothing left this edge: it has no cloud"


def test_full_mode_without_a_cloud_says_what_to_set(tmp_path: Path) -> None:
    with Edge.open(tmp_path / "a", _config(), models=_models()) as edge:
        edge.insert(ACME[:1])
        with pytest.raises(ConfigError, match=r"cloud\.address"):
            edge.query("Who leads Acme Robotics?", mode="full")


def test_a_data_dir_is_open_in_one_place_at_a_time(tmp_path: Path) -> None:
    with Edge.open(tmp_path / "a", _config(), models=_models()) as edge:
        edge.insert(ACME[:1])
        with pytest.raises(StoreError, match="in use"):
            Edge.open(tmp_path / "a", _config(), models=_models())
    with Edge.open(tmp_path / "a", models=_models()) as again:  # default config: the stored edge id is kept
        assert again.edge_id == "edge-a" and again.stats().documents == 1


def test_ingest_reads_files(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "memo.txt").write_text(ACME[0].text, encoding="utf-8")
    with Edge.open(tmp_path / "a", _config(), models=_models()) as edge:
        report = edge.ingest([docs])
        assert len(report.added) == 1 and not report.failed
