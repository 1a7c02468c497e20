"""A question's embeddings, passed along with it so that each text is embedded once per query, not once per hop.

An edge that asks the cloud sends the vectors it computed for its own retrieval; the cloud matches summaries
with them and forwards them with its probes and knowledge requests, so the probed edges skip the embedding
that was most of their retrieval's time. A receiver uses the vectors only when they come from the same model
(name and dimension) and embeds the rest itself: the vectors change no result, only who computes them.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from shared.core.errors import InvalidRequestError
from shared.core.model_api import Embedder, FloatMatrix
from shared.core.vocabulary import MAX_QUESTION_CHARS

MAX_TEXTS = 32
"""Texts one message may carry (the question and its names)."""
MAX_DIM = 4096
MAX_NAME_CHARS = 200
UNIT_TOLERANCE = 1e-2
"""Rows must be unit vectors within this (every embedder here normalises; a zero row is allowed)."""


class QueryVectorsError(InvalidRequestError):
    """Vectors sent with a question that cannot be used as they are."""


@dataclass(frozen=True)
class QueryVectors:
    """``matrix`` row i is ``embedder``'s embedding of ``texts[i]``; the question comes first."""

    embedder: str
    texts: tuple[str, ...]
    matrix: FloatMatrix

    def __post_init__(self) -> None:
        check_vectors(self)

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    def usable_by(self, embedder: Embedder) -> bool:
        return self.embedder == embedder.name and self.dim == embedder.dim

    def row(self, text: str) -> FloatMatrix | None:
        """The vector of ``text``, or None when it is not here."""
        for i, known in enumerate(self.texts):
            if known == text:
                row: FloatMatrix = self.matrix[i]
                return row
        return None


def to_send(embedder: Embedder, texts: Sequence[str], matrix: FloatMatrix) -> QueryVectors | None:
    """What may travel with a question: at most MAX_TEXTS rows, the question first; None when the embedder's
    rows could not be used by anyone (not unit vectors, say)."""
    try:
        return QueryVectors(embedder.name, tuple(texts[:MAX_TEXTS]), matrix[:MAX_TEXTS])
    except QueryVectorsError:
        return None


def embed_reusing(embedder: Embedder, texts: Sequence[str], given: QueryVectors | None) -> FloatMatrix:
    """``embedder.embed(texts)``, taking the rows ``given`` already holds when they come from this same model."""
    if given is None or not given.usable_by(embedder):
        return embedder.embed(texts)
    known = {t: given.matrix[i] for i, t in enumerate(given.texts)}
    missing = [t for t in dict.fromkeys(texts) if t not in known]
    if missing:
        known.update(zip(missing, embedder.embed(missing), strict=True))
    out = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    for i, text in enumerate(texts):
        out[i] = known[text]
    return out


def check_vectors(vectors: QueryVectors) -> None:
    """Raises QueryVectorsError, saying what is wrong, for vectors no receiver should use."""
    matrix = vectors.matrix
    if not vectors.embedder or len(vectors.embedder) > MAX_NAME_CHARS:
        raise QueryVectorsError(f"query vectors need the embedder's name (1..{MAX_NAME_CHARS} characters)")
    if not 1 <= len(vectors.texts) <= MAX_TEXTS:
        raise QueryVectorsError(f"query vectors carry {len(vectors.texts)} texts; send 1..{MAX_TEXTS}")
    if any(not t or len(t) > MAX_QUESTION_CHARS for t in vectors.texts):
        raise QueryVectorsError(f"every text of query vectors must have 1..{MAX_QUESTION_CHARS} characters")
    if len(set(vectors.texts)) != len(vectors.texts):
        raise QueryVectorsError("query vectors list a text twice; send each text once, with its one vector")
    if matrix.ndim != 2 or matrix.shape[0] != len(vectors.texts) or not 1 <= matrix.shape[1] <= MAX_DIM:
        raise QueryVectorsError(
            f"query vectors must hold one row of 1..{MAX_DIM} floats per text: got shape {matrix.shape} "
            f"for {len(vectors.texts)} texts"
        )
    if not np.all(np.isfinite(matrix)):
        raise QueryVectorsError("query vectors hold a NaN or an infinity")
    norms = np.linalg.norm(matrix, axis=1)
    if any(n > 0 and not math.isclose(float(n), 1.0, abs_tol=UNIT_TOLERANCE) for n in norms):
        raise QueryVectorsError("query vectors must be unit vectors (normalised embeddings)")


def vectors_digest(vectors: QueryVectors | None) -> str:
    """A digest of everything in ``vectors`` ("" for none): what a cache of results computed from them is keyed by."""
    if vectors is None:
        return ""
    h = hashlib.blake2b(digest_size=16)
    h.update(vectors.embedder.encode())
    for text in vectors.texts:
        h.update(b"\0" + text.encode())
    h.update(np.ascontiguousarray(vectors.matrix, dtype=np.float32).tobytes())
    return h.hexdigest()
