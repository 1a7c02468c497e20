"""The SQLite edge store (the deployment's): documents, chunks, entities, relations, links, subgraphs, summaries,
the publication log, the names the SLM typed and a model-answer cache, with all-or-nothing writes.

It is composed of parts by table group, each a subclass of :class:`~edge_node.store.sqlite_core.SqliteCore` (the
connection, the meta table and transactions): :mod:`sqlite_documents` (documents and the graph's rows),
:mod:`sqlite_reads` (what the graph, the indexes and reports read) and :mod:`sqlite_publication` (subgraphs,
summaries and the publication log); this module holds identity and the two caches.

Rows only: how mentions merge into entities and relations is the ingest's policy
(:mod:`edge_node.ingest.merge_policy`). Every write goes through :meth:`SqliteStore.transaction` (all or nothing;
nested use joins the outer one): a process killed at any point leaves the database as it was before or after that
transaction (SQLite WAL, synchronous=FULL).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from edge_node.store.sqlite_documents import DocumentRows
from edge_node.store.sqlite_publication import PublicationLog
from edge_node.store.sqlite_reads import GraphReads
from shared.core.constants import SCHEMA_VERSION
from shared.core.errors import StoreError


class SqliteStore(DocumentRows, GraphReads, PublicationLog):
    """One edge's SQLite database (``read_only``: a reader beside its writer, see SqliteCore).

    Ids of chunks, entities and relations count up from the largest in use (the vector indexes are keyed by them).
    Deleting a document takes its chunks and their mentions; deleting an entity takes its relations."""

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
        if self.in_transaction:  # part of the caller's write
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
        same answer: a store built from the same chunks needs no model call for them). ``other`` is only read;
        keys cached here keep their value; StoreError when it cannot be read."""
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
