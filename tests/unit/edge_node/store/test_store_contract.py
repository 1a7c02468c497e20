"""The store's contract, two locations: the SQLite store on disk and in SQLite's memory pass the same suite."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from edge_node.ingest.merge_policy import delete_document, write_document
from edge_node.store.opening import MEMORY, open_store
from edge_node.store.records import (
    ChunkInput,
    DocumentInput,
    ExtractedEntity,
    ExtractedRelation,
    SubgraphRecord,
)
from edge_node.store.sqlite_store import SqliteStore
from shared.core.errors import DocumentNotFoundError, StoreError

DIM = 4


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqliteStore]:
    made = open_store(tmp_path / "edge.sqlite3" if request.param == "sqlite" else MEMORY)
    assert isinstance(made, SqliteStore)
    yield made
    made.close()


def embed(texts: Sequence[str]) -> np.ndarray:
    return np.asarray([[len(t), t.count(" "), t.count(":"), 1.0] for t in texts], dtype=np.float32)


def entity(name: str, etype: str = "person", description: str = "", origin: str = "slm") -> ExtractedEntity:
    return ExtractedEntity(name, etype, description or f"{name} is mentioned", origin)


def chunk(
    idx: int, text: str, entities: Sequence[ExtractedEntity], relations: Sequence[ExtractedRelation] = ()
) -> ChunkInput:
    return ChunkInput(
        idx,
        idx * 100,
        idx * 100 + len(text),
        len(text.split()),
        text,
        np.ones(DIM, np.float32) * idx,
        tuple(entities),
        tuple(relations),
    )


def document(doc_id: str, *chunks: ChunkInput, digest: str = "h1") -> DocumentInput:
    return DocumentInput(doc_id, doc_id.title(), f"/docs/{doc_id}", digest, sum(len(c.text) for c in chunks), chunks)


ALICE_BOB = document(
    "memo",
    chunk(
        0,
        "Alice met Bob.",
        [entity("Alice"), entity("Bob")],
        [ExtractedRelation("Alice", "Bob", "Alice met Bob", "met", 1.0, "slm")],
    ),
    chunk(
        1,
        "Alice founded Acme.",
        [entity("Alice", "organization", "Alice founded Acme"), entity("Acme", "organization")],
        [ExtractedRelation("Alice", "Acme", "founded", "founder", 2.0, "cooccurrence")],
    ),
)


def test_identity_is_recorded_then_checked(store: SqliteStore) -> None:
    store.check_identity("edge-a", "minilm", 384)
    store.check_identity("edge-a", "minilm", 384)
    with pytest.raises(StoreError, match="edge_id"):
        store.check_identity("edge-b", "minilm", 384)
    assert store.get_meta("dim") == "384"


def test_a_transaction_bumps_the_generation_once_and_nested_ones_join(store: SqliteStore) -> None:
    before = store.generation
    with store.transaction(), store.transaction():
        store.set_meta("x", "1")
    assert store.generation == before + 1 and store.get_meta("x") == "1"


def test_a_failed_transaction_leaves_everything_as_before(store: SqliteStore) -> None:
    write_document(store, ALICE_BOB, embed, 200)
    counts, entities, generation = store.counts(), store.entities(), store.generation
    with pytest.raises(RuntimeError), store.transaction():
        store.remove_document("memo")
        store.set_meta("graph_dirty", "0")
        raise RuntimeError("crash mid-write")
    assert (store.counts(), store.entities(), store.generation) == (counts, entities, generation)
    assert store.document_ids() == ["memo"] and store.graph_dirty()
    (row,) = store.document_rows()
    assert (row.doc_id, row.chars) == ("memo", ALICE_BOB.n_chars) and row.stored_at > 0


def test_mentions_merge_into_entities_and_relations(store: SqliteStore) -> None:
    delta = write_document(store, ALICE_BOB, embed, 200)
    counts = store.counts()
    assert (counts.documents, counts.chunks, counts.entities, counts.relations) == (1, 2, 3, 2)
    alice = next(e for e in store.entities() if e.name == "Alice")
    assert alice.type == "person", "a tie of types goes to the first mention"
    assert alice.description == "Alice is mentioned | Alice founded Acme"
    rows = {(store.entity_name(r.src_id), store.entity_name(r.tgt_id)): r for r in store.relations()}
    assert rows[("Alice", "Acme")].weight == 2.0 and rows[("Alice", "Acme")].keywords == "founder"
    assert set(delta.entities.upserts) == {e.id for e in store.entities()} and len(delta.chunks.upserts) == 2
    assert {len(v) for _, v in store.vectors("entities")} == {DIM * 4}, "every entity got its vector"
    assert len(store.entity_chunk_links()) == 4 and store.graph_dirty()
    assert store.mention_stats()["relation_mentions.cooccurrence"] == 1
    by_id = store.chunks_by_id([cid for cid, _, _ in store.chunk_rows()] + [999])
    assert sorted(c.text for c in by_id.values()) == ["Alice founded Acme.", "Alice met Bob."]
    assert sorted(text for _, text in store.chunk_texts()) == ["Alice founded Acme.", "Alice met Bob."]


def test_a_new_version_replaces_the_old_and_orphans_go(store: SqliteStore) -> None:
    write_document(store, ALICE_BOB, embed, 200)
    second = document(
        "memo", chunk(0, "Carol runs Acme.", [entity("Carol"), entity("Acme", "organization")]), digest="h2"
    )
    delta = write_document(store, second, embed, 200)
    assert sorted(e.name for e in store.entities()) == ["Acme", "Carol"], "Alice and Bob lost their only document"
    assert store.relations() == [], "relations of a deleted entity go with it"
    assert store.document_hash("memo") == "h2" and store.counts().chunks == 1
    assert delta.entities.removed and delta.relations.removed


def test_delete_takes_everything_the_document_alone_supported(store: SqliteStore) -> None:
    write_document(store, ALICE_BOB, embed, 200)
    write_document(store, document("other", chunk(0, "Bob likes tea.", [entity("Bob")])), embed, 200)
    delete_document(store, "memo", embed, 200)
    assert [e.name for e in store.entities()] == ["Bob"] and store.document_ids() == ["other"]
    with pytest.raises(DocumentNotFoundError):
        delete_document(store, "memo", embed, 200)


def test_a_rename_moves_the_document_and_its_chunks_and_nothing_else(store: SqliteStore) -> None:
    write_document(store, ALICE_BOB, embed, 200)
    write_document(store, document("other", chunk(0, "Bob likes tea.", [entity("Bob")])), embed, 200)
    chunks_before = {cid: idx for cid, _, idx in store.chunk_rows()}
    entities_before, generation = store.entities(), store.generation
    with store.transaction():
        assert store.rename_document("memo", "notes/memo.txt")
    assert store.generation == generation + 1
    assert store.document_ids() == ["notes/memo.txt", "other"] and store.document_hash("memo") is None
    assert {cid: idx for cid, _, idx in store.chunk_rows()} == chunks_before, "chunk ids (the vectors' keys) kept"
    assert {doc for _, doc, _ in store.chunk_rows()} == {"notes/memo.txt", "other"}
    assert store.entities() == entities_before
    with store.transaction():
        assert not store.rename_document("missing", "x"), "an unknown id is not renamed"
        assert not store.rename_document("other", "notes/memo.txt"), "a taken id is not overwritten"
    assert store.document_ids() == ["notes/memo.txt", "other"]
    delete_document(store, "notes/memo.txt", embed, 200)
    assert [e.name for e in store.entities()] == ["Bob"], "the renamed document still owns its mentions"


def test_a_rename_in_a_failed_transaction_is_undone(store: SqliteStore) -> None:
    write_document(store, ALICE_BOB, embed, 200)
    with pytest.raises(RuntimeError), store.transaction():
        store.rename_document("memo", "renamed")
        raise RuntimeError("crash mid-write")
    assert store.document_ids() == ["memo"] and {doc for _, doc, _ in store.chunk_rows()} == {"memo"}


def test_model_answers_are_copied_from_another_edge_database_without_overwriting(
    store: SqliteStore, tmp_path: Path
) -> None:
    other = SqliteStore(tmp_path / "other.sqlite3")
    other.cache_put("asked before", "their answer")
    other.cache_put("asked here too", "their answer")
    other.close()
    store.cache_put("asked here too", "my answer")
    store.copy_llm_cache_from(tmp_path / "other.sqlite3")
    assert (store.cache_get("asked before"), store.cache_get("asked here too")) == ("their answer", "my answer")
    (tmp_path / "garbage.sqlite3").write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError):
        store.copy_llm_cache_from(tmp_path / "garbage.sqlite3")


def test_summaries_and_the_publication_log(store: SqliteStore) -> None:
    sg = SubgraphRecord("sg-1", 1, "fp", ("alice", "bob"), "About Alice.", ("Alice",), 2, 1, 0.0)
    store.mark_graph_dirty()
    store.save_subgraphs([sg], [])
    assert not store.graph_dirty() and [s.summary for s in store.subgraphs()] == ["About Alice."]
    store.save_subgraphs([], [("sg-1", 2)])
    assert store.subgraphs() == [] and store.max_tombstone_version("sg-1") == 2
    assert [(e.op, e.version) for e in store.pending_publications()] == [("upsert", 1), ("delete", 2)]
    first = store.pending_publications()[0].seq
    store.mark_published(first)
    assert [e.op for e in store.pending_publications()] == ["delete"]
    assert store.last_publication_seq() == first + 1 and len(store.publications_after(first)) == 1
    assert store.counts().pending_publications == 1


def test_what_the_slm_said_is_remembered(store: SqliteStore) -> None:
    store.remember_name_types([("alice", "person"), ("acme", "organization")])
    store.remember_name_types([("alice", "location")])
    assert store.name_types() == {"alice": "person", "acme": "organization"}, "a known name keeps its first type"
    assert store.cache_get("k") is None
    store.cache_put("k", "v")
    assert store.cache_get("k") == "v"


def test_a_store_on_disk_and_one_in_memory_end_in_the_same_state(tmp_path: Path) -> None:
    stores: list[SqliteStore] = [SqliteStore(tmp_path / "a.sqlite3"), open_store(MEMORY)]
    for s in stores:
        write_document(s, ALICE_BOB, embed, 200)
        write_document(s, document("other", chunk(0, "Bob likes Acme.", [entity("Bob"), entity("Acme")])), embed, 200)
        delete_document(s, "memo", embed, 200)
    a, b = stores
    assert (a.entities(), a.relations(), a.counts(), a.chunk_rows()) == (
        b.entities(),
        b.relations(),
        b.counts(),
        b.chunk_rows(),
    )
    assert dict(a.vectors("entities")) == dict(b.vectors("entities"))
    for s in stores:
        s.close()
