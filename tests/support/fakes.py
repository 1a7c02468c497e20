"""Fakes several test modules share (fast tests only; integration tests use the real models)."""

from __future__ import annotations

from collections.abc import Sequence

from shared.core.model_api import FloatMatrix
from shared.models.fakes import HashEmbedder


class CountingEmbedder(HashEmbedder):
    """Hash embeddings that remember every text they were asked to embed, in order."""

    def __init__(self, dim: int = 16) -> None:
        super().__init__(dim)
        self.asked: list[str] = []

    @property
    def texts(self) -> int:
        """How many texts were embedded."""
        return len(self.asked)

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        self.asked.extend(texts)
        return super().embed(texts)
