"""An edge's commitment to its chunks: a Merkle tree root it publishes with its summaries, and a proof it sends with
each chunk it returns.

The cloud cannot tell from one reply who copied whom: a chunk that repeats a question may be an honest passage the
question was written from, or an echo of the question made up after it arrived. A proof settles it. A chunk whose
proof leads to a root the edge published before the question arrived was held before the question; any other chunk
may be an echo (cloud_server.routing.echo). Each leaf hashes a secret salt with the chunk's text, so the root and
the proofs' other hashes say nothing about chunks that were not returned; a proof's length tells the tree's depth
(the edge's chunk count to a power of two).

Hashing follows RFC 6962's domain separation (a leaf and an inner node are hashed with different prefixes, so one
cannot pass for the other); the tree is padded to a power of two with a fixed empty leaf.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

SALT_BYTES = 32
"""Length of a leaf's salt."""
MAX_DEPTH = 32
"""Deepest tree a proof may describe (four billion chunks); a longer proof is refused."""
_LEAF, _NODE = b"\x00", b"\x01"
_EMPTY = hashlib.sha256(b"\x02dgrag empty leaf").digest()


@dataclass(frozen=True)
class ChunkProof:
    """What shows that a returned chunk's text is a leaf of a committed tree."""

    salt: bytes
    index: int
    path: tuple[bytes, ...]
    """The sibling hashes from the leaf up to the root."""


def leaf_hash(salt: bytes, text: str) -> bytes:
    return hashlib.sha256(_LEAF + salt + text.encode("utf-8")).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(_NODE + left + right).digest()


class MerkleTree:
    """A tree over ``leaves`` (leaf hashes, in a fixed order), padded to a power of two."""

    def __init__(self, leaves: Sequence[bytes]) -> None:
        width = 1
        while width < len(leaves):
            width *= 2
        level = [*leaves, *([_EMPTY] * (width - len(leaves)))]
        self._levels = [level]
        while len(level) > 1:
            level = [_node(level[i], level[i + 1]) for i in range(0, len(level), 2)]
            self._levels.append(level)

    @property
    def root(self) -> bytes:
        return self._levels[-1][0]

    def path(self, index: int) -> tuple[bytes, ...]:
        """The sibling hashes from leaf ``index`` up to the root."""
        out = []
        for level in self._levels[:-1]:
            out.append(level[index ^ 1])
            index //= 2
        return tuple(out)


def proven_root(text: str, proof: ChunkProof) -> bytes | None:
    """The root that ``proof`` leads to from ``text``, or None when the proof is malformed (a wrong salt length, a
    path deeper than MAX_DEPTH or of hashes that are not 32 bytes, an index outside the tree)."""
    path = proof.path
    if len(proof.salt) != SALT_BYTES or len(path) > MAX_DEPTH or any(len(h) != 32 for h in path):
        return None
    if not 0 <= proof.index < 2 ** len(path):
        return None
    at, index = leaf_hash(proof.salt, text), proof.index
    for sibling in path:
        at = _node(sibling, at) if index & 1 else _node(at, sibling)
        index //= 2
    return at
