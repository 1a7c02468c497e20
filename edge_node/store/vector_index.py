"""faiss indexes (entities, relations, chunks) kept in step with SQLite and persisted beside it.

SQLite holds every vector as a blob and a generation counter; ``vectors.state.json`` records the
generation the faiss files reflect. Files are replaced atomically (write, fsync, rename) and the state
file last, so after a crash either the files match the database or the generation differs and the
indexes are rebuilt from SQLite on open. Writes therefore need not save faiss after each document.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import faiss
import numpy as np

from edge_node.store.records import StoreDelta, Vector, VectorDelta
from edge_node.store.sqlite_store import SqliteStore

SPACES = ("chunks", "entities", "relations")
STATE_FILE = "vectors.state.json"


@dataclass(frozen=True)
class Hit:
    """A search result: row id in its SQLite table and cosine similarity."""

    id: int
    score: float


class VectorSpace:
    """One inner-product index over L2-normalised vectors, addressed by SQLite row id."""

    def __init__(self, dim: int, index: faiss.Index | None = None) -> None:
        self.dim = dim
        self.index = index if index is not None else faiss.IndexIDMap2(faiss.IndexFlatIP(dim))

    def __len__(self) -> int:
        return int(self.index.ntotal)

    def apply(self, delta: VectorDelta) -> None:
        drop = np.fromiter(set(delta.removed) | set(delta.upserts), dtype=np.int64)
        if drop.size:
            self.index.remove_ids(drop)  # type: ignore[arg-type]  # the SWIG wrapper accepts id arrays
        if delta.upserts:
            ids = np.fromiter(delta.upserts, dtype=np.int64)
            self.index.add_with_ids(np.vstack([delta.upserts[i] for i in ids]).astype(np.float32), ids)

    def search(self, query: Vector, k: int) -> list[Hit]:
        if len(self) == 0 or k <= 0:
            return []
        scores, ids = self.index.search(np.asarray(query, dtype=np.float32).reshape(1, -1), min(k, len(self)))
        return [Hit(int(i), float(s)) for s, i in zip(scores[0], ids[0], strict=True) if i >= 0]

    def vector(self, vid: int) -> Vector:
        return np.asarray(self.index.reconstruct(int(vid)), dtype=np.float32)


class VectorIndexes:
    """The three vector spaces of an edge, loaded from disk or rebuilt from SQLite."""

    def __init__(self, directory: Path, dim: int, store: SqliteStore) -> None:
        self._dir = directory
        self._dim = dim
        self._store = store
        self.spaces: dict[str, VectorSpace] = {}
        self.rebuilt = False
        if self._saved_generation() == store.generation and all((directory / f"{s}.faiss").is_file() for s in SPACES):
            for space in SPACES:
                self.spaces[space] = VectorSpace(dim, faiss.read_index(str(directory / f"{space}.faiss")))
        else:
            self.rebuild()
        self._saved = self._saved_generation()

    @property
    def chunks(self) -> VectorSpace:
        return self.spaces["chunks"]

    @property
    def entities(self) -> VectorSpace:
        return self.spaces["entities"]

    @property
    def relations(self) -> VectorSpace:
        return self.spaces["relations"]

    def rebuild(self) -> None:
        """Recreate every index from the vectors stored in SQLite and save them."""
        for space in SPACES:
            delta = VectorDelta()
            for vid, blob in self._store.vectors(space):
                if blob:
                    delta.upserts[vid] = np.frombuffer(blob, dtype=np.float32)
            index = VectorSpace(self._dim)
            index.apply(delta)
            self.spaces[space] = index
        self.rebuilt = True
        self.save()

    def apply(self, delta: StoreDelta) -> None:
        self.chunks.apply(delta.chunks)
        self.entities.apply(delta.entities)
        self.relations.apply(delta.relations)

    def save(self) -> None:
        """Write the indexes atomically, then the state file naming the SQLite generation they reflect."""
        generation = self._store.generation
        if getattr(self, "_saved", None) == generation:
            return
        self._dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        for space, index in self.spaces.items():
            _atomic_write(self._dir / f"{space}.faiss", faiss.serialize_index(index.index).tobytes())
        _atomic_write(self._dir / STATE_FILE, json.dumps({"generation": generation}).encode())
        self._saved = generation

    def _saved_generation(self) -> int | None:
        try:
            return int(json.loads((self._dir / STATE_FILE).read_text())["generation"])
        except (OSError, ValueError, KeyError, TypeError):
            return None


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as handle:
        os.fchmod(handle.fileno(), 0o600)
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
