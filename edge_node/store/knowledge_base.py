"""One edge's knowledge base on disk: the SQLite store and the faiss indexes under one data directory.

A data directory is written by one process at a time (an exclusive lock file); a second writer gets a
clear error instead of interleaving writes. Readers (``read_only``) may open it beside that writer.
"""

from __future__ import annotations

import dataclasses
import fcntl
import os
from pathlib import Path
from types import TracebackType

from edge_node.store.opening import open_store
from edge_node.store.records import StoreDelta
from edge_node.store.vector_index import VectorIndexes
from shared.core.edge_stats import EdgeStats
from shared.core.errors import StoreError

DB_FILE = "edge.sqlite3"
VECTOR_DIR = "vectors"
LOCK_FILE = ".lock"


def is_edge_dir(data_dir: Path) -> bool:
    """Whether ``data_dir`` holds an edge's store."""
    return (data_dir / DB_FILE).is_file()


class EdgeKnowledgeBase:
    """SQLite store + vector indexes of one edge."""

    def __init__(self, data_dir: Path, store: str | Path | None = None, *, read_only: bool = False) -> None:
        """``store``: where the store lives (:func:`~edge_node.store.opening.open_store`; default the SQLite
        database in ``data_dir``, ``":memory:"`` for one that vanishes with the process). ``read_only``: read beside
        the process that may hold the directory (a serving edge): no lock is taken and nothing is written; SQLite's
        WAL gives this reader the last committed state."""
        self.data_dir = data_dir
        self.read_only = read_only
        self._vectors: VectorIndexes | None = None
        self._lock_fd = -1
        if read_only:
            if not is_edge_dir(data_dir):
                raise StoreError(f"{data_dir} holds no edge ({DB_FILE} is missing); check --data-dir")
            self.store = open_store(data_dir / DB_FILE, read_only=True)
            return
        if data_dir.exists() and not data_dir.is_dir():
            raise StoreError(f"--data-dir {data_dir} exists and is not a directory")
        if not data_dir.exists():
            data_dir.mkdir(parents=True, mode=0o700)  # the edge's documents: its owner only
        self._lock_fd = os.open(data_dir / LOCK_FILE, os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(self._lock_fd)
            raise StoreError(
                f"{data_dir} is in use by another dgrag process; wait for it or stop it (stats, summaries, source "
                "and audit read it while it serves)"
            ) from exc
        _owner_only(data_dir, 0o700)  # an edge's directory made before (or by hand) with a looser mode
        if store is None:
            store = data_dir / DB_FILE
            if not store.exists():  # SQLite gives its -wal and -shm files the same mode
                os.close(os.open(store, os.O_CREAT | os.O_WRONLY, 0o600))
            _owner_only(store, 0o600)
        self.store = open_store(store)

    def bind_embedder(self, name: str, dim: int, edge_id: str) -> None:
        """Record (first use) or verify the edge id and embedder this knowledge base is built with."""
        self.store.check_identity(edge_id, name, dim)

    @property
    def vectors(self) -> VectorIndexes:
        if self._vectors is None:
            dim = self.store.get_meta("dim")
            if dim is None:
                raise StoreError(f"{self.data_dir} holds no knowledge yet; ingest documents first")
            self._vectors = VectorIndexes(self.data_dir / VECTOR_DIR, int(dim), self.store)
        return self._vectors

    def apply(self, delta: StoreDelta) -> None:
        """Bring the faiss indexes in line with a committed store write."""
        self.vectors.apply(delta)

    def flush(self) -> None:
        """Persist the faiss indexes (they are rebuilt from SQLite if this never happens)."""
        if self._vectors is not None:
            self._vectors.save()

    def stats(self, with_document_ids: bool = True) -> EdgeStats:
        """What this edge holds (``with_document_ids`` False: without the list of ids, which may be long)."""
        store = self.store
        return EdgeStats(
            edge_id=store.get_meta("edge_id"),
            **dataclasses.asdict(store.counts()),
            bytes_on_disk=self.bytes_on_disk(),
            graph_dirty=store.graph_dirty(),
            origins=store.mention_stats(),
            document_ids=store.document_ids() if with_document_ids else [],
        )

    def bytes_on_disk(self) -> int:
        return sum(p.stat().st_size for p in self.data_dir.rglob("*") if p.is_file())

    def close(self) -> None:
        if self.read_only:
            self.store.close()
            return
        try:
            self.flush()
        finally:
            self.store.close()
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)

    def __enter__(self) -> EdgeKnowledgeBase:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _owner_only(path: Path, mode: int) -> None:
    """Tighten ``path`` to ``mode`` when its group or others have any access."""
    if path.stat().st_mode & 0o077:
        try:
            path.chmod(mode)
        except OSError as exc:
            raise StoreError(
                f"{path} is open to other users and cannot be tightened ({exc}); run chmod {mode:o} on it"
            ) from exc
