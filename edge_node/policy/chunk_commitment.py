"""This edge's commitment to the chunks it may return: the root it publishes with its summaries, and the proof it
sends with each returned chunk (shared.core.chunk_commitment says why).

Each leaf hashes a salt with the chunk's text as it leaves (cut to ``privacy.max_chunk_chars``). The salt is keyed
by this edge's secret and the chunk's id, so the same store gives the same root in every process and nobody
without the key can test a guessed text against a hash. The tree is rebuilt when the store changes; every use
reads the store, so it runs on the edge's worker thread.
"""

from __future__ import annotations

import hashlib
import hmac

from edge_node.store.sqlite_store import SqliteStore
from shared.core.chunk_commitment import ChunkProof, MerkleTree, leaf_hash


class CommittedChunks:
    """The commitment over ``store``'s chunks, salted with ``key``."""

    def __init__(self, store: SqliteStore, key: bytes, max_chars: int) -> None:
        self._store = store
        self._key = key
        self._max_chars = max_chars
        self._generation = -1
        self._tree = MerkleTree([])
        self._at: dict[int, int] = {}
        self._leaves: list[bytes] = []

    def _salt(self, chunk_id: int) -> bytes:
        return hmac.new(self._key, f"chunk-salt\0{chunk_id}".encode(), hashlib.sha256).digest()

    def _current(self) -> MerkleTree:
        generation = self._store.generation
        if generation != self._generation:
            ids = [row[0] for row in self._store.chunk_rows()]
            rows = self._store.chunks_by_id(ids)
            kept = [i for i in ids if i in rows]
            self._leaves = [leaf_hash(self._salt(i), rows[i].text[: self._max_chars]) for i in kept]
            self._at = {chunk_id: n for n, chunk_id in enumerate(kept)}
            self._tree = MerkleTree(self._leaves)
            self._generation = generation
        return self._tree

    def root(self) -> bytes:
        """The root over the store's chunks as they stand."""
        return self._current().root

    def proof(self, chunk_id: int, text: str) -> ChunkProof | None:
        """The proof that ``text`` is chunk ``chunk_id`` as committed; None when the store holds no such chunk."""
        tree = self._current()
        index = self._at.get(chunk_id)
        salt = self._salt(chunk_id)
        if index is None or self._leaves[index] != leaf_hash(salt, text):
            return None
        return ChunkProof(salt, index, tree.path(index))
