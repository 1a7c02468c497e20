"""Ingest, update, delete and summary refresh of an edge, with a scripted SLM and hash embeddings."""

from __future__ import annotations

from pathlib import Path

import faiss
import pytest

from edge_node.ingest.readers import RawDocument
from edge_node.store.knowledge_base import EdgeKnowledgeBase
from shared.core.errors import DocumentNotFoundError, StoreError
from shared.core.model_api import GenerationRequest
from tests.support.fakes_edge import DOCS, make_service


def _ids(space: object) -> set[int]:
    return set(faiss.vector_to_array(space.index.id_map).tolist())  # type: ignore[attr-defined]


def _summary_requests(requests: list[GenerationRequest]) -> int:
    return sum(1 for r in requests if r.json_schema is None)


def _faiss_matches_sqlite(kb: EdgeKnowledgeBase) -> None:
    for table in ("chunks", "entities", "relations"):
        assert _ids(kb.vectors.spaces[table]) == {vid for vid, _ in kb.store.vectors(table)}, table


def test_ingest_builds_graph_and_summaries(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path / "edge")
    report = service.ingest(DOCS)
    kb = service._kb
    counts = kb.store.counts()
    assert report.added == ["acme", "globex", "umbrella"] and not report.failed
    assert counts.documents == 3 and counts.chunks == 3
    names = {e.name for e in kb.store.entities()}
    assert {"Acme Corp", "Jane Doe", "Berlin", "Globex Inc", "Initech", "Lisbon", "Maria Silva"} <= names
    assert counts.relations >= 4
    assert counts.summaries == counts.subgraphs >= 1
    assert counts.pending_publications == counts.summaries
    _faiss_matches_sqlite(kb)
    for sg in kb.store.subgraphs():
        assert sg.version == 1 and sg.id.startswith("edge-a/sg-")
        assert "Key entities:" in sg.summary and sg.top_entities
    kb.close()


def test_unchanged_document_does_no_work(tmp_path: Path) -> None:
    service, gen = make_service(tmp_path / "edge")
    service.ingest(DOCS)
    calls = len(gen.requests)
    report = service.ingest(DOCS)
    assert report.unchanged == ["acme", "globex", "umbrella"]
    assert len(gen.requests) == calls
    assert report.summary is None
    service._kb.close()


def test_changed_document_replaces_old_version_everywhere(tmp_path: Path) -> None:
    service, gen = make_service(tmp_path / "edge")
    service.ingest(DOCS)
    kb = service._kb
    before = {s.id: s for s in kb.store.subgraphs()}
    old_chunks = {vid for vid, _ in kb.store.vectors("chunks")}
    summaries_before = _summary_requests(gen.requests)
    changed = RawDocument("globex", "Globex", "Globex Inc merged with Hooli Labs in Austin.", "g.txt")
    report = service.ingest([changed])
    assert report.updated == ["globex"]
    names = {e.name for e in kb.store.entities()}
    assert "Initech" not in names and "Project Titan" not in names  # orphans of the old version are gone
    assert {"Hooli Labs", "Austin"} <= names
    assert {"Acme Corp", "Jane Doe"} <= names  # other documents untouched
    new_chunks = {vid for vid, _ in kb.store.vectors("chunks")}
    assert len(new_chunks) == 3 and len(old_chunks & new_chunks) == 2
    _faiss_matches_sqlite(kb)
    assert report.summary is not None
    after = {s.id: s for s in kb.store.subgraphs()}
    # Only the subgraph(s) that held Globex knowledge were re-summarised; the others kept id and version.
    resummarised = _summary_requests(gen.requests) - summaries_before
    assert resummarised == len(report.summary.upserted) < len(after)
    unchanged = [sid for sid in after if sid in before and after[sid].version == before[sid].version]
    assert len(unchanged) == report.summary.unchanged >= 1
    for sid in report.summary.upserted:
        assert after[sid].version == (before[sid].version + 1 if sid in before else 1)
    log = kb.store.pending_publications()
    assert [e.summary_id for e in log[len(before) :] if e.op == "upsert"] == list(report.summary.upserted)
    assert {e.summary_id for e in log if e.op == "delete"} == set(report.summary.deleted)
    kb.close()


def test_delete_removes_document_and_orphans(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path / "edge")
    service.ingest(DOCS)
    kb = service._kb
    result = service.delete(["umbrella"])
    names = {e.name for e in kb.store.entities()}
    assert not {"Umbrella Health", "Lisbon", "Maria Silva"} & names
    assert kb.store.counts().documents == 2
    _faiss_matches_sqlite(kb)
    assert result is not None
    with pytest.raises(DocumentNotFoundError, match="nope"):
        service.delete(["nope"])
    service.delete(["acme", "globex"])
    counts = kb.store.counts()
    assert (counts.documents, counts.chunks, counts.entities, counts.relations, counts.subgraphs) == (0, 0, 0, 0, 0)
    deletes = [e for e in kb.store.pending_publications() if e.op == "delete"]
    assert len({e.summary_id for e in deletes}) >= 1
    kb.close()


def test_faiss_files_rebuilt_when_behind_sqlite(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path / "edge", store=None)
    service.ingest(DOCS[:2])
    service._kb.close()
    kb = EdgeKnowledgeBase(tmp_path / "edge")
    assert not kb.vectors.rebuilt  # files match the database: loaded as they are
    kb.close()
    # Simulate a crash after a committed write but before the faiss files were saved.
    state = tmp_path / "edge" / "vectors" / "vectors.state.json"
    state.write_text('{"generation": 1}')
    kb = EdgeKnowledgeBase(tmp_path / "edge")
    assert kb.vectors.rebuilt
    _faiss_matches_sqlite(kb)
    kb.close()


def test_store_refuses_other_embedder_or_edge(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path / "edge", store=None)
    service.ingest(DOCS[:1])
    service._kb.close()
    with pytest.raises(StoreError, match="edge_id"):
        make_service(tmp_path / "edge", edge_id="other", store=None)


def test_second_writer_is_refused(tmp_path: Path) -> None:
    kb = EdgeKnowledgeBase(tmp_path / "edge")
    with pytest.raises(StoreError, match="in use"):
        EdgeKnowledgeBase(tmp_path / "edge")
    kb.close()
    EdgeKnowledgeBase(tmp_path / "edge").close()


def test_read_errors_are_reported_and_batch_goes_on(tmp_path: Path) -> None:
    from shared.core.errors import InputDocumentError

    service, _ = make_service(tmp_path / "edge")
    report = service.ingest([InputDocumentError("bad.bin", "looks binary"), DOCS[0]])
    assert report.failed == [("bad.bin", "looks binary")]
    assert report.added == ["acme"]
    service._kb.close()


def _classifications(requests: list[GenerationRequest]) -> int:
    return sum(1 for r in requests if r.json_schema is not None and "types" in r.json_schema.get("properties", {}))


def test_a_later_ingest_process_reuses_the_names_the_first_one_typed(tmp_path: Path) -> None:
    first, gen = make_service(tmp_path / "edge", store=None)
    first.ingest(DOCS[:1])
    assert _classifications(gen.requests) == 1
    first._kb.close()
    later, gen = make_service(tmp_path / "edge", store=None)  # as a new process: a fresh extractor, the same store
    later.ingest([RawDocument("acme-2", "Acme again", "Jane Doe left Acme Corp in Berlin.", "b.txt")])
    assert _classifications(gen.requests) == 0  # every name was typed before, by the first process
    assert later._kb.store.name_types()["jane doe"] == "organization"
    later._kb.close()


def test_a_store_without_the_type_memory_falls_back_to_its_slm_typed_entities(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path / "edge", store=None)
    service.ingest(DOCS[:1])
    store = service._kb.store
    store._db.execute("DELETE FROM name_types")  # as a store built before the memory existed
    known = store.name_types()
    assert known["acme corp"] == "organization" and "berlin" in known
    service._kb.close()
