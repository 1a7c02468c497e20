"""The public Python API of an edge (``edge_node.api.Edge``), with the scripted SLM and hash embeddings."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_node.api import Document, Edge, EdgeModels
from edge_node.policy.doc_id_key import doc_id_key
from edge_node.policy.privacy import outbound_doc_id
from edge_node.store.knowledge_base import DB_FILE
from shared.config import ChunkingConfig, EdgeConfig, PartitionConfig
from shared.core.errors import ConfigError, DocumentNotFoundError, StoreError

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


def test_insert_query_stats_summaries_delete(tmp_path: Path, edge_models: EdgeModels) -> None:
    with Edge.open(tmp_path / "a", _config(), models=edge_models) as edge:
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


def test_full_mode_without_a_cloud_says_what_to_set(tmp_path: Path, edge_models: EdgeModels) -> None:
    with Edge.open(tmp_path / "a", _config(), models=edge_models) as edge:
        edge.insert(ACME[:1])
        with pytest.raises(ConfigError, match=r"cloud\.address"):
            edge.query("Who leads Acme Robotics?", mode="full")


def test_a_data_dir_is_open_in_one_place_at_a_time(tmp_path: Path, edge_models: EdgeModels) -> None:
    with Edge.open(tmp_path / "a", _config(), models=edge_models) as edge:
        edge.insert(ACME[:1])
        with pytest.raises(StoreError, match="in use"):
            Edge.open(tmp_path / "a", _config(), models=edge_models)
    with Edge.open(tmp_path / "a", models=edge_models) as again:  # default config: the stored edge id is kept
        assert again.edge_id == "edge-a" and again.stats().documents == 1


def test_a_reader_sees_what_the_holder_commits_while_it_holds_the_data_dir(
    tmp_path: Path, edge_models: EdgeModels
) -> None:
    with Edge.open(tmp_path / "a", _config(), models=edge_models) as holder:  # as a serving edge holds it
        holder.insert(ACME[:1])
        with Edge.open(tmp_path / "a", read_only=True) as reader:
            assert reader.edge_id == "edge-a" and reader.stats().document_ids == ["acme-1"]
            assert [r.id for r in reader.subgraphs()] == [r.id for r in holder.subgraphs()]
            cited = outbound_doc_id("acme-1", holder.config.privacy, "edge-a", doc_id_key(tmp_path / "a"))
            assert reader.sources(cited) == ["acme-1"], "an owner looks up a cited id while the edge serves"
            holder.insert(ACME[1:])  # the holder writes on; the reader's next read sees the commit
            assert sorted(reader.stats().document_ids) == ["acme-1", "acme-2"]
            with pytest.raises(StoreError, match="opened to read"):
                reader.insert(ACME[:1])
        assert holder.stats().documents == 2, "the reader changed nothing and left the holder's lock alone"
    database = (tmp_path / "a" / DB_FILE).read_bytes()
    with Edge.open(tmp_path / "a", read_only=True) as reader:  # with nobody holding it too
        assert reader.stats().documents == 2
    assert (tmp_path / "a" / DB_FILE).read_bytes() == database


def test_a_reader_refuses_a_directory_without_an_edge(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="holds no edge"):
        Edge.open(tmp_path / "empty", read_only=True)
    assert not (tmp_path / "empty").exists(), "nothing is made for a reader"


def test_ingest_reads_files(tmp_path: Path, edge_models: EdgeModels) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "memo.txt").write_text(ACME[0].text, encoding="utf-8")
    with Edge.open(tmp_path / "a", _config(), models=edge_models) as edge:
        report = edge.ingest([docs])
        assert len(report.added) == 1 and not report.failed


def _stored_under_absolute_paths(data_dir: Path, files: list[Path], models: EdgeModels) -> None:
    """An edge as earlier versions left it: each file's document stored under its absolute path."""
    with Edge.open(data_dir, _config(), models=models) as edge:
        edge.insert([Document(str(f.resolve()), f.stem, f.read_text(encoding="utf-8")) for f in files])


def test_an_ingest_renames_a_file_stored_under_its_absolute_path_without_redoing_it(
    tmp_path: Path, edge_models: EdgeModels
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "memo.txt").write_text(ACME[0].text, encoding="utf-8")
    _stored_under_absolute_paths(tmp_path / "a", [docs / "memo.txt"], edge_models)
    with Edge.open(tmp_path / "a", _config(), models=edge_models) as edge:
        chunks = edge.stats().chunks
        report = edge.ingest([docs])
        assert report.renamed == [(str((docs / "memo.txt").resolve()), "docs/memo.txt")]
        assert report.unchanged == ["docs/memo.txt"] and not report.added, "same text: nothing re-extracted"
        assert edge.stats().document_ids == ["docs/memo.txt"] and edge.stats().chunks == chunks
        assert {s.doc_id for s in edge.query("Who leads Acme Robotics?", mode="local").sources} == {"docs/memo.txt"}


def test_migrate_ids_renames_absolute_ids_under_the_root_in_one_go(tmp_path: Path, edge_models: EdgeModels) -> None:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    files = [docs / "memo.txt", docs / "sub" / "plant.txt"]
    for file, doc in zip(files, ACME, strict=True):
        file.write_text(doc.text, encoding="utf-8")
    _stored_under_absolute_paths(tmp_path / "a", files, edge_models)
    with Edge.open(tmp_path / "a", _config(), models=edge_models) as edge:
        edge.insert([Document("kept-as-is", "Other", "Nordic Steel ships from Bergen.")])
        result = edge.migrate_ids(tmp_path / "docs" / "..")  # a root named with .. is the same folder
        assert sorted(new for _, new in result.renamed) == ["docs/memo.txt", "docs/sub/plant.txt"]
        assert edge.stats().document_ids == ["docs/memo.txt", "docs/sub/plant.txt", "kept-as-is"]
        assert edge.ingest([docs]).unchanged == ["docs/memo.txt", "docs/sub/plant.txt"], "ingest agrees"
    with Edge.open(tmp_path / "a", _config(), models=edge_models) as again:
        assert not again.migrate_ids(tmp_path).renamed, "a second run finds nothing to do"
