"""The chunk commitment: every leaf's proof leads to the root; a changed text, salt, index or path does not; a
malformed proof is refused; the edge's commitment follows its store."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cloud_server.sessions.summary_intake import checked_root
from edge_node.policy.chunk_commitment import CommittedChunks
from edge_node.store.opening import MEMORY, open_store
from edge_node.store.records import ChunkInput, DocumentInput
from shared.core.chunk_commitment import MAX_DEPTH, ChunkProof, MerkleTree, leaf_hash, proven_root
from shared.core.errors import InvalidRequestError

SALT = b"s" * 32


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 13])
def test_every_leaf_proves_its_text_and_nothing_else(n: int) -> None:
    texts = [f"chunk number {i}" for i in range(n)]
    tree = MerkleTree([leaf_hash(SALT, t) for t in texts])
    for i, text in enumerate(texts):
        proof = ChunkProof(SALT, i, tree.path(i))
        assert proven_root(text, proof) == tree.root
        assert proven_root(text + " and an echo", proof) != tree.root
        assert proven_root(text, dataclasses.replace(proof, salt=b"t" * 32)) != tree.root
        if n > 1:
            assert proven_root(text, dataclasses.replace(proof, index=(i + 1) % n)) != tree.root


def test_a_malformed_proof_proves_nothing() -> None:
    tree = MerkleTree([leaf_hash(SALT, "a"), leaf_hash(SALT, "b")])
    path = tree.path(0)
    assert proven_root("a", ChunkProof(b"short", 0, path)) is None
    assert proven_root("a", ChunkProof(SALT, 2, path)) is None, "an index outside the tree"
    assert proven_root("a", ChunkProof(SALT, -1, path)) is None
    assert proven_root("a", ChunkProof(SALT, 0, (b"x" * 31,))) is None
    assert proven_root("a", ChunkProof(SALT, 0, (b"x" * 32,) * (MAX_DEPTH + 1))) is None


def _document(doc_id: str, *texts: str) -> DocumentInput:
    chunks = tuple(ChunkInput(i, 0, len(t), 3, t, np.zeros(4, np.float32), (), ()) for i, t in enumerate(texts))
    return DocumentInput(doc_id, doc_id, "", doc_id, sum(map(len, texts)), chunks)


def test_the_edges_commitment_follows_its_store_and_proves_chunks_as_they_leave() -> None:
    store = open_store(MEMORY)
    with store.transaction():
        store.insert_document(_document("d1", "Zephyr Medical makes insulin pumps.", "Omar Haddad founded it."))
    committed = CommittedChunks(store, b"k" * 32, max_chars=20)
    first = committed.root()
    [(cid, _, _), _] = store.chunk_rows()
    proof = committed.proof(cid, "Zephyr Medical makes insulin pumps."[:20])
    assert proof is not None and proven_root("Zephyr Medical makes", proof) == first
    assert committed.proof(cid, "Zephyr Medical makes insulin pumps.") is None, "only the text as it leaves"
    assert committed.proof(10**9, "made up") is None
    assert CommittedChunks(store, b"k" * 32, 20).root() == first, "the same store, the same root"
    assert CommittedChunks(store, b"j" * 32, 20).root() != first, "salted by the edge's key"
    with store.transaction():
        store.insert_document(_document("d2", "Lena Fischer joined in 2020."))
    assert committed.root() != first


def test_a_published_root_that_is_not_32_bytes_is_refused_with_the_reason() -> None:
    assert checked_root("e", b"") == b"" and checked_root("e", b"r" * 32) == b"r" * 32
    with pytest.raises(InvalidRequestError, match="32 bytes"):
        checked_root("e", b"r" * 33)
