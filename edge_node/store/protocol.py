"""What the rest of the edge may do with its store: the storage contract, met by the SQLite store (the
deployment) and the in-memory store (its twin, for fast tests);
``tests/unit/edge_node/store/test_store_contract.py`` runs one suite against both.

Rows only: how mentions merge into entities and relations is the ingest's policy
(:mod:`edge_node.ingest.merge_policy`), which calls the primitives below inside :meth:`transaction`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from edge_node.store.records import (
    ChunkRow,
    DocumentInput,
    DocumentRow,
    EntityRow,
    InsertedDocument,
    PublicationEntry,
    RelationRow,
    RemovedDocument,
    StoreCounts,
    SubgraphRecord,
    Vector,
)


class EdgeStore(Protocol):
    """One edge's durable knowledge: documents, chunks, the graph's rows, summaries, the publication log and
    caches. What every implementation MUST do, method by method, is in its docstring; across all of them:

    - Every write MUST happen inside :meth:`transaction`, and a transaction MUST be all or nothing: when its
      block raises, every row is as before it began (nested use joins the outer one).
    - Ids of chunks, entities and relations are positive integers that MUST count up from the largest in use
      (the vector indexes are keyed by them); publication sequence numbers MUST never repeat.
    - Deleting a document MUST take its chunks and their mentions; deleting an entity MUST take its relations.
    """

    path: Path

    # -- identity and transactions
    def get_meta(self, key: str) -> str | None:
        """MUST return the value last set for ``key``, or None."""
        ...

    def set_meta(self, key: str, value: str) -> None:
        """MUST store ``value`` under ``key``, replacing any earlier value."""
        ...

    def check_identity(self, edge_id: str, embedder: str, dim: int) -> None:
        """MUST record the schema version, edge id and embedder on first use, and raise StoreError naming the
        setting when a later call differs from what is recorded."""
        ...

    @property
    def generation(self) -> int:
        """MUST grow by one with every committed transaction (0 before the first)."""
        ...

    def transaction(self) -> AbstractContextManager[None]:
        """MUST make the block's writes one all-or-nothing change; nested use MUST join the outer one."""
        ...

    def close(self) -> None:
        """MUST release what the store holds open; nothing is read or written after it."""
        ...

    # -- documents and the graph's rows
    def document_hash(self, doc_id: str) -> str | None:
        """MUST return the content hash stored with ``doc_id``, or None for an unknown id."""
        ...

    def document_ids(self) -> list[str]:
        """MUST return every document id, sorted."""
        ...

    def document_rows(self) -> list[DocumentRow]:
        """MUST return every document's id, title, size in characters and when it was stored, sorted by id."""
        ...

    def insert_document(self, doc: DocumentInput) -> InsertedDocument:
        """MUST store a new document with its chunks and their mentions, finding or creating each entity by its
        normalised name and each relation by its two entities, and MUST return the new chunks' vectors and the
        entities and relations touched. The caller has removed any earlier version."""
        ...

    def remove_document(self, doc_id: str) -> RemovedDocument | None:
        """MUST delete the document with its chunks and their mentions and return what they touched; None for an
        unknown id (nothing changes)."""
        ...

    def rename_document(self, old: str, new: str) -> bool:
        """MUST give document ``old`` the id ``new`` with its chunks (their ids kept), changing nothing else;
        False, changing nothing, when ``old`` is unknown or ``new`` is taken."""
        ...

    def entity_mentions(self, entity_id: int) -> list[tuple[str, str]]:
        """MUST return (type, description) of every mention of the entity, in chunk order."""
        ...

    def entity_name(self, entity_id: int) -> str:
        """MUST return the entity's name as first seen."""
        ...

    def update_entity(self, entity_id: int, etype: str, description: str) -> None:
        """MUST set the entity's merged type and description."""
        ...

    def set_entity_vector(self, entity_id: int, vector: Vector) -> None:
        """MUST store the entity's vector (float32)."""
        ...

    def delete_entity(self, entity_id: int) -> list[int]:
        """MUST delete the entity and its relations, returning the deleted relations' ids."""
        ...

    def relation_mentions(self, relation_id: int) -> list[tuple[str, str, float]]:
        """MUST return (description, keywords, weight) of every mention of the relation, in chunk order."""
        ...

    def relation_names(self, relation_id: int) -> tuple[str, str]:
        """MUST return the names of the relation's two entities (lower id first)."""
        ...

    def update_relation(self, relation_id: int, description: str, keywords: str, weight: float) -> None:
        """MUST set the relation's merged description, keywords and weight."""
        ...

    def set_relation_vector(self, relation_id: int, vector: Vector) -> None:
        """MUST store the relation's vector (float32)."""
        ...

    def delete_relation(self, relation_id: int) -> None:
        """MUST delete the relation."""
        ...

    def mark_graph_dirty(self) -> None:
        """MUST record that the graph changed since subgraphs were last saved."""
        ...

    def graph_dirty(self) -> bool:
        """MUST say whether the graph changed since :meth:`save_subgraphs` last ran."""
        ...

    # -- reads
    def counts(self) -> StoreCounts:
        """MUST count the rows of each kind, and the publications not yet acknowledged."""
        ...

    def vectors(self, table: str) -> Iterator[tuple[int, bytes]]:
        """MUST yield (id, float32 bytes) of every row of ``chunks``, ``entities`` or ``relations`` (a row with no
        vector yet yields empty bytes); another table name MUST raise ValueError."""
        ...

    def entities(self) -> list[EntityRow]:
        """MUST return every entity, by id."""
        ...

    def relations(self) -> list[RelationRow]:
        """MUST return every relation, by id."""
        ...

    def entity_chunk_links(self) -> list[tuple[int, int]]:
        """MUST return every (entity id, chunk id) mention pair."""
        ...

    def chunks_by_id(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        """MUST return the chunks of ``ids`` that exist (unknown ids are left out)."""
        ...

    def chunk_rows(self) -> list[tuple[int, str, int]]:
        """MUST return (chunk id, document id, index in its document) of every chunk, by id."""
        ...

    def chunk_texts(self) -> Iterator[tuple[int, str]]:
        """MUST yield (chunk id, text) of every chunk."""
        ...

    def mention_stats(self) -> dict[str, int]:
        """MUST count mentions by table and origin, as ``<table>.<origin>``."""
        ...

    # -- subgraphs, summaries and the publication log
    def subgraphs(self) -> list[SubgraphRecord]:
        """MUST return every subgraph with its summary, by id."""
        ...

    def save_subgraphs(self, upserts: Sequence[SubgraphRecord], deletions: Sequence[tuple[str, int]]) -> None:
        """MUST, in one transaction, write ``upserts`` (subgraph and summary), delete ``deletions`` ((id,
        tombstone version)), log each change for publication in order and clear the graph-dirty mark."""
        ...

    def max_tombstone_version(self, summary_id: str) -> int:
        """MUST return the highest version a deletion of ``summary_id`` was logged with (0: never deleted)."""
        ...

    def pending_publications(self) -> list[PublicationEntry]:
        """MUST return the logged changes not yet acknowledged, in sequence order."""
        ...

    def last_publication_seq(self) -> int:
        """MUST return the highest sequence number ever logged (0: none)."""
        ...

    def publications_after(self, seq: int) -> list[PublicationEntry]:
        """MUST return the logged changes after ``seq``, in sequence order."""
        ...

    def mark_published(self, up_to_seq: int) -> None:
        """MUST mark every change up to ``up_to_seq`` acknowledged."""
        ...

    # -- what the SLM said: names it typed, answers it gave
    def name_types(self) -> dict[str, str]:
        """MUST return normalised name -> the type the SLM gave it first (or the extractor's rejection mark)."""
        ...

    def remember_name_types(self, items: Sequence[tuple[str, str]]) -> None:
        """MUST keep the (name, type) pairs of names not yet known; a known name keeps its first type."""
        ...

    def cache_get(self, key: str) -> str | None:
        """MUST return the model answer cached under ``key``, or None."""
        ...

    def cache_put(self, key: str, value: str) -> None:
        """MUST cache ``value`` under ``key``; outside a transaction it MUST be kept at once."""
        ...

    def copy_llm_cache_from(self, other: Path) -> None:
        """MUST add the model answers cached in the SQLite edge database at ``other`` (read, never written;
        keys already cached here keep their value), raising StoreError when it cannot be read."""
        ...
