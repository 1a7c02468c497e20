"""The SQLite edge store (the deployment's): documents, chunks, entities, relations, links, subgraphs, summaries,
the publication log, the names the SLM typed and a model-answer cache, with all-or-nothing writes.

It is composed of parts by table group, each over one shared :class:`~edge_node.store.sqlite_core.SqliteCore`
(the connection, the meta table and transactions): :mod:`sqlite_documents` (documents and the graph's rows),
:mod:`sqlite_reads` (what the graph, the indexes and reports read) and :mod:`sqlite_publication` (subgraphs,
summaries and the publication log); this module holds identity and the two caches, and hands every other
method of the contract (:class:`~edge_node.store.protocol.EdgeStore`) to its part.

Every write goes through :meth:`SqliteStore.transaction`; a process killed at any point leaves the
database as it was before or after that transaction (SQLite WAL, synchronous=FULL).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from edge_node.store.protocol import EdgeStore
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
from edge_node.store.sqlite_core import SqliteCore
from edge_node.store.sqlite_documents import DocumentRows
from edge_node.store.sqlite_publication import PublicationLog
from edge_node.store.sqlite_reads import GraphReads
from shared.core.constants import SCHEMA_VERSION
from shared.core.errors import StoreError


class SqliteStore:
    """One edge's SQLite database."""

    def __init__(self, path: Path, read_only: bool = False) -> None:
        """``read_only``: a reader beside the database's writer (sqlite_core.SqliteCore)."""
        self.path = path
        self._core = SqliteCore(path, read_only)
        self._db = self._core.db
        self._rows = DocumentRows(self._core)
        self._reads = GraphReads(self._core)
        self._log = PublicationLog(self._core)

    def close(self) -> None:
        self._core.close()

    # -- identity and transactions (sqlite_core) ------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        return self._core.get_meta(key)

    def set_meta(self, key: str, value: str) -> None:
        self._core.set_meta(key, value)

    @property
    def generation(self) -> int:
        """Counter bumped by every committed write; the faiss files record the generation they reflect."""
        return self._core.generation

    def transaction(self) -> AbstractContextManager[None]:
        """An immediate (write-locking) transaction that bumps :attr:`generation`; nested use joins it."""
        return self._core.transaction()

    def check_identity(self, edge_id: str, embedder: str, dim: int) -> None:
        """Record, or check against what is recorded, the schema, edge id and embedder of this store."""
        with self.transaction():
            expected = {
                "schema_version": str(SCHEMA_VERSION),
                "edge_id": edge_id,
                "embedder": embedder,
                "dim": str(dim),
            }
            for key, value in expected.items():
                stored = self.get_meta(key)
                if stored is None:
                    self.set_meta(key, value)
                elif stored != value:
                    raise StoreError(
                        f"data directory {self.path.parent} was built with {key}={stored!r}, not {value!r}; "
                        "use the same setting or a new --data-dir"
                    )

    # -- documents and the graph's rows (sqlite_documents) -----------------------------------------

    def document_hash(self, doc_id: str) -> str | None:
        return self._rows.document_hash(doc_id)

    def document_ids(self) -> list[str]:
        return self._rows.document_ids()

    def document_rows(self) -> list[DocumentRow]:
        return self._rows.document_rows()

    def insert_document(self, doc: DocumentInput) -> InsertedDocument:
        return self._rows.insert_document(doc)

    def remove_document(self, doc_id: str) -> RemovedDocument | None:
        return self._rows.remove_document(doc_id)

    def rename_document(self, old: str, new: str) -> bool:
        return self._rows.rename_document(old, new)

    def entity_mentions(self, entity_id: int) -> list[tuple[str, str]]:
        return self._rows.entity_mentions(entity_id)

    def entity_name(self, entity_id: int) -> str:
        return self._rows.entity_name(entity_id)

    def update_entity(self, entity_id: int, etype: str, description: str) -> None:
        return self._rows.update_entity(entity_id, etype, description)

    def set_entity_vector(self, entity_id: int, vector: Vector) -> None:
        return self._rows.set_entity_vector(entity_id, vector)

    def delete_entity(self, entity_id: int) -> list[int]:
        return self._rows.delete_entity(entity_id)

    def relation_mentions(self, relation_id: int) -> list[tuple[str, str, float]]:
        return self._rows.relation_mentions(relation_id)

    def relation_names(self, relation_id: int) -> tuple[str, str]:
        return self._rows.relation_names(relation_id)

    def update_relation(self, relation_id: int, description: str, keywords: str, weight: float) -> None:
        return self._rows.update_relation(relation_id, description, keywords, weight)

    def set_relation_vector(self, relation_id: int, vector: Vector) -> None:
        return self._rows.set_relation_vector(relation_id, vector)

    def delete_relation(self, relation_id: int) -> None:
        return self._rows.delete_relation(relation_id)

    def mark_graph_dirty(self) -> None:
        return self._rows.mark_graph_dirty()

    # -- reads (sqlite_reads) ----------------------------------------------------------------------

    def counts(self) -> StoreCounts:
        return self._reads.counts()

    def vectors(self, table: str) -> Iterator[tuple[int, bytes]]:
        return self._reads.vectors(table)

    def entities(self) -> list[EntityRow]:
        return self._reads.entities()

    def relations(self) -> list[RelationRow]:
        return self._reads.relations()

    def entity_chunk_links(self) -> list[tuple[int, int]]:
        return self._reads.entity_chunk_links()

    def chunks_by_id(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        return self._reads.chunks_by_id(ids)

    def chunk_rows(self) -> list[tuple[int, str, int]]:
        return self._reads.chunk_rows()

    def chunk_texts(self) -> Iterator[tuple[int, str]]:
        return self._reads.chunk_texts()

    def mention_stats(self) -> dict[str, int]:
        return self._reads.mention_stats()

    # -- subgraphs, summaries and the publication log (sqlite_publication) -------------------------

    def subgraphs(self) -> list[SubgraphRecord]:
        return self._log.subgraphs()

    def save_subgraphs(self, upserts: Sequence[SubgraphRecord], deletions: Sequence[tuple[str, int]]) -> None:
        return self._log.save_subgraphs(upserts, deletions)

    def graph_dirty(self) -> bool:
        return self._log.graph_dirty()

    def max_tombstone_version(self, summary_id: str) -> int:
        return self._log.max_tombstone_version(summary_id)

    def pending_publications(self) -> list[PublicationEntry]:
        return self._log.pending_publications()

    def last_publication_seq(self) -> int:
        return self._log.last_publication_seq()

    def publications_after(self, seq: int) -> list[PublicationEntry]:
        return self._log.publications_after(seq)

    def mark_published(self, up_to_seq: int) -> None:
        return self._log.mark_published(up_to_seq)

    # -- names the SLM typed -------------------------------------------------------------------------------

    def name_types(self) -> dict[str, str]:
        """Normalised name -> the type the SLM gave it first (or the extractor's rejection mark).

        A store built before this memory existed has none; its SLM-typed entity mentions stand in (without
        the rejections, which were never stored)."""
        known = {str(k): str(t) for k, t in self._db.execute("SELECT key, type FROM name_types")}
        if known:
            return known
        rows = self._db.execute(
            "SELECT e.key, m.type FROM entity_mentions m JOIN entities e ON e.id = m.entity_id "
            "WHERE m.origin = 'slm' ORDER BY m.chunk_id"
        )
        for key, etype in rows:
            known.setdefault(str(key), str(etype))
        return known

    def remember_name_types(self, items: Sequence[tuple[str, str]]) -> None:
        """Keep what the SLM said of new names; a name already known keeps its first type."""
        sql = "INSERT OR IGNORE INTO name_types(key, type) VALUES(?, ?)"
        if self._core.in_transaction:  # part of the caller's write
            self._db.executemany(sql, items)
            return
        self._db.execute("BEGIN IMMEDIATE")  # one commit for the chunk's names, not one per name
        try:
            self._db.executemany(sql, items)
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    # -- model-answer cache -------------------------------------------------------------------------------

    def cache_get(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM llm_cache WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def cache_put(self, key: str, value: str) -> None:
        # Outside a write transaction this commits at once: the answer survives a crash of the document.
        self._db.execute("INSERT OR REPLACE INTO llm_cache(key, value) VALUES(?, ?)", (key, value))

    def copy_llm_cache_from(self, other: Path) -> None:
        """Add the model answers cached in the store at ``other`` (the same prompt to the same model gives the
        same answer: a store built from the same chunks needs no model call for them)."""
        try:
            self._db.execute("ATTACH DATABASE ? AS other", (str(other),))
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{other} cannot be read as an edge database: {exc}") from exc
        try:
            self._db.execute("INSERT OR IGNORE INTO llm_cache(key, value) SELECT key, value FROM other.llm_cache")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{other} holds no usable model-answer cache: {exc}") from exc
        finally:
            self._db.execute("DETACH DATABASE other")


def _meets_the_contract(store: SqliteStore) -> EdgeStore:
    return store  # mypy checks here that SqliteStore implements every method of EdgeStore
