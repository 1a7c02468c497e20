"""The SQLite half of the edge store: documents, chunks, entities, relations, links, subgraphs, summaries,
the publication log, the names the SLM typed and a model-answer cache, with all-or-nothing writes.

The class is assembled from parts by table group: :mod:`sqlite_documents` (documents and the graph's rows),
:mod:`sqlite_reads` (what the graph, the indexes and reports read), :mod:`sqlite_publication` (subgraphs,
summaries and the publication log); this module holds the connection, identity, transactions and caches.

Every write goes through :meth:`SqliteStore.transaction`; a process killed at any point leaves the
database as it was before or after that transaction (SQLite WAL, synchronous=FULL).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path

from edge_node.store.protocol import EdgeStore
from edge_node.store.sqlite_documents import DocumentRows
from edge_node.store.sqlite_publication import PublicationLog
from edge_node.store.sqlite_reads import GraphReads
from shared.constants import SCHEMA_VERSION
from shared.errors import StoreError


class SqliteStore(DocumentRows, GraphReads, PublicationLog):
    """One edge's SQLite database."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(resources.files("edge_node.store").joinpath("schema.sql").read_text())
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path} is not a usable dgrag edge database: {exc}") from exc
        self._in_tx = False

    def close(self) -> None:
        self._db.close()

    # -- meta ---------------------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self._db.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

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

    @property
    def generation(self) -> int:
        """Counter bumped by every committed write; the faiss files record the generation they reflect."""
        return int(self.get_meta("generation") or 0)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """An immediate (write-locking) transaction that bumps :attr:`generation`; nested use joins it."""
        if self._in_tx:
            yield
            return
        self._db.execute("BEGIN IMMEDIATE")
        self._in_tx = True
        try:
            yield
            self.set_meta("generation", str(self.generation + 1))
            self._db.execute("COMMIT")
        except BaseException as exc:
            if self._db.in_transaction:  # SQLite may have rolled back itself (a full disk does)
                self._db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError) and "full" in str(exc):
                raise StoreError(
                    f"the disk holding {self.path} is full ({exc}); free space and run again "
                    "(everything written before this document is kept)"
                ) from exc
            raise
        finally:
            self._in_tx = False

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
        if self._in_tx:  # part of the caller's write
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
