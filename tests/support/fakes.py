"""Fakes several test modules share (fast tests only; integration tests use the real models)."""

from __future__ import annotations

from collections.abc import Sequence

from cloud_server.api import Candidates
from shared.core.model_api import FloatMatrix
from simulation.fakes import HashEmbedder


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


class ReversedStrategy:
    """A routing strategy that asks the edges stage 2 likes least: what a researcher might write to see what
    routing buys (cloud_server.api.RoutingStrategy)."""

    def choose(self, candidates: Candidates) -> list[str]:
        ranked = sorted(candidates.probes, key=lambda p: p.score)
        return [p.edge_id for p in ranked][: candidates.k]
