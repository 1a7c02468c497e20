"""The cloud's summary index on disk: every summary held (its card and its vector), the tombstones, and the edges
whose whole set was received, in one SQLite file (``summary_store``).

A restarted cloud loads it instead of waiting for every edge to send its whole set again and embedding all of it:
it holds what it held, says so in each reconnecting edge's welcome, and the edge sends only what differs. Every
write of the index is one transaction here, made before the write is visible in memory, so what a crash leaves on
disk is what the index held. The file records the embedder that made its vectors; under another embedder it is
refused rather than mixed.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from shared.core.errors import ConfigError
from shared.core.knowledge import SummaryCard

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS summaries (
    id TEXT PRIMARY KEY, edge_id TEXT NOT NULL, version INTEGER NOT NULL, text TEXT NOT NULL,
    top_entities TEXT NOT NULL, n_entities INTEGER NOT NULL, n_relations INTEGER NOT NULL, vector BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS summaries_by_edge ON summaries (edge_id);
CREATE TABLE IF NOT EXISTS tombstones (id TEXT PRIMARY KEY, version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS synced (edge_id TEXT PRIMARY KEY);
"""


@dataclass(frozen=True)
class StoredIndex:
    """What the file holds: each summary with its edge and vector, the tombstones (oldest first), the synced edges."""

    summaries: list[tuple[str, SummaryCard, np.ndarray]]
    tombstones: dict[str, int]
    synced: set[str]


@dataclass(frozen=True)
class EdgeWrite:
    """One write of one edge's view: summaries removed, summaries added (with vectors), tombstones set or
    dropped, and whether the edge's whole set was received."""

    edge_id: str
    removed: Sequence[str] = ()
    added: Sequence[tuple[SummaryCard, np.ndarray]] = ()
    tombstones: Sequence[tuple[str, int]] = ()
    tombstones_dropped: Sequence[str] = ()
    synced: bool = False


class SummaryStore:
    """The SQLite file at ``path``, for vectors of ``embedder`` (its name) in ``dim`` dimensions."""

    def __init__(self, path: Path, embedder: str, dim: int) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)  # SQLite gives its -wal file the file's mode
        self._path = path
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        os.chmod(path, 0o600)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._dim = dim
        held = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
        if not held:
            self._db.executemany("INSERT INTO meta VALUES (?, ?)", [("embedder", embedder), ("dim", str(dim))])
        elif held.get("embedder") != embedder or held.get("dim") != str(dim):
            raise ConfigError(
                f"summary_store {path} holds vectors of {held.get('embedder')} ({held.get('dim')} dimensions), not"
                f" of this cloud's embedder {embedder} ({dim}); point summary_store at a new file, or delete this one"
                " (every edge then sends its summaries again)"
            )

    def load(self) -> StoredIndex:
        rows = self._db.execute(
            "SELECT id, edge_id, version, text, top_entities, n_entities, n_relations, vector FROM summaries"
        )
        summaries = []
        for sid, edge_id, version, text, names, n_entities, n_relations, blob in rows:
            card = SummaryCard(sid, int(version), text, tuple(json.loads(names)), int(n_entities), int(n_relations))
            summaries.append((str(edge_id), card, np.frombuffer(blob, dtype=np.float32).copy()))
        tombstones = {str(s): int(v) for s, v in self._db.execute("SELECT id, version FROM tombstones ORDER BY rowid")}
        synced = {str(e) for (e,) in self._db.execute("SELECT edge_id FROM synced")}
        return StoredIndex(summaries, tombstones, synced)

    def write(self, writes: Iterable[EdgeWrite]) -> None:
        """Apply ``writes`` in one transaction."""
        db = self._db
        db.execute("BEGIN")
        try:
            for w in writes:
                db.executemany("DELETE FROM summaries WHERE id = ?", [(s,) for s in w.removed])
                rows = [_row(w.edge_id, card, vector) for card, vector in w.added]
                db.executemany("INSERT OR REPLACE INTO summaries VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
                db.executemany("DELETE FROM tombstones WHERE id = ?", [(s,) for s in w.tombstones_dropped])
                db.executemany("INSERT OR REPLACE INTO tombstones VALUES (?, ?)", list(w.tombstones))
                if w.synced:
                    db.execute("INSERT OR IGNORE INTO synced VALUES (?)", (w.edge_id,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._db.close()


def _row(edge_id: str, card: SummaryCard, vector: np.ndarray) -> tuple[object, ...]:
    names = json.dumps(list(card.top_entities))
    blob = np.asarray(vector, dtype=np.float32).tobytes()
    return (card.id, edge_id, card.version, card.text, names, card.n_entities, card.n_relations, blob)
