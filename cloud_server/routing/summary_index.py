"""The cloud's global summary index: every connected edge's subgraph summaries in one faiss index.

Versioned: an upsert older than what is held, or a tombstone older than the held summary, is ignored, so
deltas that arrive late or twice never move an edge's view backwards. A full sync replaces an edge's view. With a
store (cloud_server.routing.summary_store) every write is also written to disk, and a new index starts from what
the store holds, without embedding anything again.

A write holds its summaries at once, routable by their words (BM25), and returns; one thread of the index's own
embeds them in batches of up to ``MAX_BATCH``, oldest first. A summary joins the dense search, and the store, once
embedded. At fleet size a cold cloud so holds every summary within minutes, while the embedding takes as long as it
takes (``dgrag sim swarm``: 10,000 edges of 5 summaries held in 86 s, embedded in 1,045 s on 2 cores).
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import faiss
import numpy as np

from cloud_server.routing.edge_rank import Row, ranked
from cloud_server.routing.sparse_index import SparseIndex
from cloud_server.routing.summary_store import EdgeWrite, StoredIndex, SummaryStore
from shared.core.knowledge import SummaryCard, SummaryMatch, SummaryTombstone
from shared.core.model_api import Embedder
from shared.core.summary_digest import HeldSummary as HeldCard
from shared.core.summary_digest import held_summary

log = logging.getLogger("dgrag.cloud")

MAX_BATCH = 256
"""Most summaries embedded in one model call."""
MAX_TOMBSTONES = 100_000
"""Tombstones remembered (to ignore late, older upserts); beyond this the oldest are forgotten."""
POOL_CANDIDATES = 1024
"""Summaries scored when ranking by edge or fusing BM25: the best dense matches, far beyond any edge's best few.
Every summary of the development bundles (a few hundred) is a candidate; at fleet size (50,000 summaries) the
1,024 best dense matches are rescored, which keeps stage 1 within milliseconds (``dgrag sim swarm``)."""


@dataclass(frozen=True)
class HeldSummary:
    edge_id: str
    card: SummaryCard
    vector_id: int
    """Its vector's id in the faiss index; WAITING while it waits for its embedding."""


WAITING = 0
"""The vector id of a summary held without a vector yet (ids of vectors start at 1)."""


class SummaryIndex:
    """Summaries of all edges, searchable by the question's embedding (inner product of unit vectors)."""

    def __init__(self, embedder: Embedder, store: SummaryStore | None = None) -> None:
        self._embedder = embedder
        self._waiting: dict[str, None] = {}
        """Ids of the summaries held without a vector, oldest first (a dict as an ordered set)."""
        self._embedding: threading.Thread | None = None
        """The thread embedding waiting summaries, while any wait (see the module's docstring)."""
        self._store = store
        self._index = faiss.IndexIDMap2(
            faiss.IndexScalarQuantizer(embedder.dim, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT)
        )
        """Vectors kept as 16-bit floats: half the memory of float32, and a scan of 50,000 summaries for the 1,024
        best takes 2 ms against 11 ms (a flat float32 scan is bound by memory reads), with the same 1,024."""
        self._held: dict[str, HeldSummary] = {}
        self._by_edge: dict[str, set[str]] = {}
        """Each edge's summary ids (so no per-edge question scans every summary held)."""
        self.embedded = 0
        """Summaries embedded since this index was made (a restart that loads its store embeds none again)."""
        self._by_vector: dict[int, tuple[str, str, int]] = {}
        """Summary id, edge id and version of each vector held (a search's rows are made from them)."""
        self._tombstones: dict[str, int] = {}
        self._next_id = 1
        self._sparse = SparseIndex()
        self._synced: set[str] = set()
        """Edges whose whole set this index received (since it started): their view can be reconciled."""
        self._lock = threading.Lock()
        self._settled = threading.Condition(self._lock)
        """Notified whenever summaries waiting for vectors get them."""
        self._writers: dict[str, threading.Lock] = {}
        """One per edge, held through a whole write and by held_view: a view handed to a reconnecting edge never
        misses a write of its earlier session still being applied."""
        if store is not None:
            self._load(store.load())

    def _load(self, stored: StoredIndex) -> None:
        """Hold what ``stored`` holds (its vectors as they are: nothing is embedded)."""
        by_edge: dict[str, list[tuple[SummaryCard, np.ndarray]]] = {}
        for edge_id, card, vector in stored.summaries:
            by_edge.setdefault(edge_id, []).append((card, vector))
        for edge_id, pairs in by_edge.items():
            self._insert(edge_id, [c for c, _ in pairs], np.stack([v for _, v in pairs]))
        self._tombstones = dict(stored.tombstones)
        self._synced = set(stored.synced)

    def _persist(self, write: EdgeWrite) -> None:
        if self._store is not None:
            self._store.write([write])

    def _writer(self, edge_id: str) -> threading.Lock:
        with self._lock:
            return self._writers.setdefault(edge_id, threading.Lock())

    def replace_edge(self, edge_id: str, cards: Sequence[SummaryCard]) -> int:
        """Make ``cards`` the whole view of ``edge_id`` (a full sync); returns how many wait to be embedded.

        A reconnecting edge sends all its summaries again: those held unchanged keep their vectors, so only
        new or changed ones cost an embedding."""
        with self._writer(edge_id):
            return self._replace_edge(edge_id, cards)

    def _replace_edge(self, edge_id: str, cards: Sequence[SummaryCard]) -> int:
        with self._lock:
            kept = self._by_edge.get(edge_id, set())
            unchanged = {c.id for c in cards if c.id in kept and self._held[c.id].card == c}
        fresh = [c for c in cards if c.id not in unchanged]
        with self._lock:
            gone = [sid for sid in self._by_edge.get(edge_id, ()) if sid not in unchanged]
            stones = [s for s in self._tombstones if _owner(s) == edge_id]
            self._remove_ids(gone)
            for sid in stones:
                del self._tombstones[sid]
            self._insert(edge_id, fresh)
            self._synced.add(edge_id)
            self._persist(EdgeWrite(edge_id, gone, [], tombstones_dropped=stones, synced=True))
        return len(fresh)

    def held_view(self, edge_id: str) -> tuple[bool, list[HeldCard]]:
        """Whether this index holds a view of ``edge_id`` from a full sync, and that view's summaries (id, version,
        digest): what a reconnecting edge compares with its own to send only the difference. It waits for a write
        of ``edge_id`` in progress (blocking: call it from a worker thread)."""
        with self._writer(edge_id), self._lock:
            cards = [self._held[sid].card for sid in self._by_edge.get(edge_id, ())]
            return edge_id in self._synced, [held_summary(c) for c in sorted(cards, key=lambda c: c.id)]

    def apply_delta(self, edge_id: str, upserts: Sequence[SummaryCard], tombstones: Sequence[SummaryTombstone]) -> None:
        """Apply versioned upserts and tombstones of ``edge_id``; only upserts newer than what is held wait to be
        embedded (a replayed delta costs no embedding)."""
        with self._writer(edge_id):
            self._apply_delta(edge_id, upserts, tombstones)

    def _apply_delta(
        self, edge_id: str, upserts: Sequence[SummaryCard], tombstones: Sequence[SummaryTombstone]
    ) -> None:
        with self._lock:
            upserts = [card for card in upserts if self._newer(card)]
            set_stones: list[tuple[str, int]] = []
            for stone in tombstones:
                held = self._held.get(stone.id)
                if held is None or held.card.version <= stone.version:
                    self._remove_ids([stone.id])
                    version = max(stone.version, self._tombstones.pop(stone.id, 0))
                    self._tombstones[stone.id] = version  # re-inserted: the dict keeps the newest last
                    set_stones.append((stone.id, version))
            forgotten = []
            while len(self._tombstones) > MAX_TOMBSTONES:  # the oldest go first (a later sync clears them anyway)
                forgotten.append(next(iter(self._tombstones)))
                del self._tombstones[forgotten[-1]]
            kept = [i for i, card in enumerate(upserts) if self._newer(card)]
            self._remove_ids([upserts[i].id for i in kept])
            self._insert(edge_id, [upserts[i] for i in kept])
            removed = [s for s, _ in set_stones]
            self._persist(EdgeWrite(edge_id, removed, [], set_stones, forgotten))

    def search(
        self,
        question_vector: np.ndarray,
        m: int,
        edge_pool: int = 1,
        question: str = "",
        sparse_weight: float = 0.0,
        hidden: Callable[[str], bool] | None = None,
    ) -> list[SummaryMatch]:
        """The ``m`` best summaries for the question, best first, among the edges not ``hidden`` (their summaries
        take no place: the ``m`` are as many as they would be without them).

        ``edge_pool`` = 1 ranks summaries by their own similarity. Above 1, an edge's score is the mean of its
        ``edge_pool`` most similar summaries (or of all it has, when fewer) and `edge_rank.ranked` orders
        the summaries: an edge that matches the question in several subgraphs beats one that matches it in a
        single summary by chance. With ``sparse_weight`` > 0 and the ``question`` text, a summary's score is its
        cosine plus ``sparse_weight`` × its BM25 against the question (scaled to the best, so in [0, 1]).
        """
        with self._lock:
            if not self._held or m <= 0:
                return []
            query = np.asarray(question_vector, dtype=np.float32).reshape(1, -1)
            fused = sparse_weight > 0 and bool(question)
            wanted = m if edge_pool <= 1 and not fused else max(m, POOL_CANDIDATES)
            if hidden is not None:
                wanted += sum(len(ids) for edge_id, ids in self._by_edge.items() if hidden(edge_id))
            scores, ids = self._index.search(query, min(wanted, len(self._held)))
            held = self._by_vector
            found = zip(scores[0].tolist(), ids[0].tolist(), strict=True)
            rows: list[Row] = [(score, *held[vid]) for score, vid in found if vid in held]
            if hidden is not None:
                rows = [row for row in rows if not hidden(row[2])]
            if fused:
                sparse = self._sparse.scores(question, [r[1] for r in rows] + list(self._waiting))
                rows = [(r[0] + sparse_weight * sparse.get(r[1], 0.0), *r[1:]) for r in rows]
                rows += self._waiting_rows(sparse, sparse_weight, hidden)
                rows.sort(key=lambda r: (-r[0], r[1]))
            if edge_pool > 1:
                rows = ranked(rows, edge_pool)
            return [SummaryMatch(sid, edge_id, score, version) for score, sid, edge_id, version in rows[:m]]

    def _waiting_rows(self, sparse: dict[str, float], weight: float, hidden: Callable[[str], bool] | None) -> list[Row]:
        """Summaries waiting for their vectors that share words with the question, scored by BM25 alone."""
        rows = []
        for sid in self._waiting:
            if (score := sparse.get(sid, 0.0)) > 0:
                held = self._held[sid]
                if not (hidden and hidden(held.edge_id)):
                    rows.append((weight * score, sid, held.edge_id, held.card.version))
        return rows

    def waiting(self) -> int:
        """Summaries held without a vector yet."""
        with self._lock:
            return len(self._waiting)

    def settle(self, timeout: float) -> bool:
        """Wait until no summary waits for its vector; False when ``timeout`` seconds passed first."""
        with self._settled:
            return self._settled.wait_for(lambda: not self._waiting, timeout)

    def _newer(self, card: SummaryCard) -> bool:
        """Whether ``card`` is newer than both its tombstone and the card held under its id (lock held)."""
        held = self._held.get(card.id)
        return card.version > self._tombstones.get(card.id, 0) and (held is None or held.card.version < card.version)

    def embeddings_needed(self, edge_id: str, cards: Sequence[SummaryCard], full: bool) -> int:
        """How many of ``cards`` the cloud would embed: in a full sync those not held unchanged for ``edge_id``,
        in a delta those newer than what is held."""
        with self._lock:
            if full:
                return sum(
                    1 for c in cards if not ((h := self._held.get(c.id)) and h.edge_id == edge_id and h.card == c)
                )
            return sum(1 for c in cards if self._newer(c))

    def held_sizes(self, edge_id: str) -> dict[str, int]:
        """Text length of every summary held for ``edge_id``, by id (what the per-edge caps count)."""
        with self._lock:
            return {sid: len(self._held[sid].card.text) for sid in self._by_edge.get(edge_id, ())}

    def tombstone_count(self) -> int:
        with self._lock:
            return len(self._tombstones)

    def count(self, edge_id: str | None = None) -> int:
        """Summaries held with their vectors (of ``edge_id``, or of every edge): those the dense search finds."""
        with self._lock:
            if edge_id is None:
                return len(self._held) - len(self._waiting)
            ids = self._by_edge.get(edge_id, ())
            return len(ids) - sum(1 for sid in ids if sid in self._waiting) if self._waiting else len(ids)

    def counts_by_edge(self) -> dict[str, int]:
        """:meth:`count` of every edge holding any summary, with or without its vector."""
        with self._lock:
            return {
                edge_id: len(ids) - sum(1 for sid in ids if sid in self._waiting) if self._waiting else len(ids)
                for edge_id, ids in self._by_edge.items()
                if ids
            }

    def texts(self, summary_ids: Sequence[str]) -> dict[str, str]:
        """The text and key names of each summary of ``summary_ids`` the index holds, by id."""
        with self._lock:
            held = [(sid, self._held.get(sid)) for sid in summary_ids]
            return {sid: " ".join((h.card.text, *h.card.top_entities)) for sid, h in held if h is not None}

    def cards(self, edge_id: str) -> list[SummaryCard]:
        """The summaries held for ``edge_id``, by id."""
        with self._lock:
            return sorted((self._held[sid].card for sid in self._by_edge.get(edge_id, ())), key=lambda c: c.id)

    def _insert(self, edge_id: str, cards: Sequence[SummaryCard], vectors: np.ndarray | None = None) -> None:
        """Hold ``cards`` with their ``vectors`` (loaded from the store), or waiting for them (lock held)."""
        if not cards:
            return
        self._remove_ids(list({c.id for c in cards}))  # never two vectors for one id
        if vectors is None:
            for card in cards:  # the same id twice: the later card wins
                self._waiting.pop(card.id, None)
                self._waiting[card.id] = None
                self._hold(edge_id, card, WAITING)
            self._embed_in_background()
            return
        for card, vid in zip(cards, self._add_vectors(vectors), strict=True):
            self._hold(edge_id, card, vid)

    def _add_vectors(self, vectors: np.ndarray) -> list[int]:
        """Put ``vectors`` in the faiss index under new ids, returned in order (lock held)."""
        ids = np.arange(self._next_id, self._next_id + len(vectors), dtype=np.int64)
        self._next_id += len(vectors)
        self._index.add_with_ids(vectors, ids)
        return [int(v) for v in ids]

    def _hold(self, edge_id: str, card: SummaryCard, vid: int) -> None:
        old = self._held.get(card.id)
        if old is not None and old.vector_id != WAITING:  # the same id twice in one batch: the earlier vector goes
            self._index.remove_ids(np.asarray([old.vector_id], dtype=np.int64))  # type: ignore[arg-type]
            self._by_vector.pop(old.vector_id, None)
        self._held[card.id] = HeldSummary(edge_id, card, vid)
        self._by_edge.setdefault(edge_id, set()).add(card.id)
        if vid != WAITING:
            self._by_vector[vid] = (card.id, edge_id, card.version)
        self._sparse.add(card.id, card.text, card.top_entities)

    def _embed_in_background(self) -> None:
        """Start the embedding thread unless it runs (lock held)."""
        if self._embedding is None and self._waiting:
            self._embedding = threading.Thread(target=self._embed_waiting, name="summary-embedding", daemon=True)
            self._embedding.start()

    def _embed_waiting(self) -> None:
        """Embed waiting summaries, oldest first, a batch at a time, until none waits."""
        while True:
            with self._lock:
                batch = [self._held[sid].card for sid in itertools.islice(self._waiting, MAX_BATCH)]
                if not batch:
                    self._embedding = None
                    return
            try:
                vectors = self._embedder.embed([c.text for c in batch])
                self.embedded += len(batch)
            except Exception:  # they stay waiting: the next write starts the thread again
                log.exception("embedding %d summaries failed; they stay routable by their words", len(batch))
                with self._lock:
                    self._embedding = None
                return
            with self._lock:
                self._attach(batch, vectors)

    def _attach(self, cards: Sequence[SummaryCard], vectors: np.ndarray) -> None:
        """Give each of ``cards`` still held, unchanged and waiting its vector, and store it (lock held)."""
        by_edge: dict[str, list[int]] = {}
        for i, card in enumerate(cards):
            held = self._held.get(card.id)
            if held is not None and held.vector_id == WAITING and held.card == card:
                by_edge.setdefault(held.edge_id, []).append(i)
        for edge_id, rows in by_edge.items():
            mine = [cards[i] for i in rows]
            for card, vid in zip(mine, self._add_vectors(vectors[rows]), strict=True):
                del self._waiting[card.id]  # held already, its words indexed: only its vector is new
                self._held[card.id] = HeldSummary(edge_id, card, vid)
                self._by_vector[vid] = (card.id, edge_id, card.version)
            self._persist(EdgeWrite(edge_id, added=list(zip(mine, vectors[rows], strict=True))))
        self._settled.notify_all()

    def _remove_ids(self, summary_ids: Sequence[str]) -> None:
        vids = [self._held[s].vector_id for s in summary_ids if s in self._held]
        vids = [v for v in vids if v != WAITING]
        for sid in summary_ids:
            self._waiting.pop(sid, None)
        if vids:
            self._index.remove_ids(np.asarray(vids, dtype=np.int64))  # type: ignore[arg-type]
        for sid in summary_ids:
            held = self._held.pop(sid, None)
            if held is not None:
                self._by_vector.pop(held.vector_id, None)  # WAITING is never a key
                self._by_edge[held.edge_id].discard(sid)
                self._sparse.remove(sid)


def _owner(summary_id: str) -> str:
    return summary_id.split("/", 1)[0]
