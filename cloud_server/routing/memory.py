"""Routing memory: what answered cross-edge queries taught the cloud about its edges (transport-free).

After each cross-edge answer the cloud records, per edge it probed or asked, how useful that edge proved for the
question: its probe score, or for an asked edge its retrieval evidence and whether its chunks made the merged
context. Later questions close to a remembered one (cosine of their embeddings) get each edge's remembered
usefulness as a prior, mixed into the stage-2 routing score. Like ReMindRAG's memory replay, but per edge and
without any text: only question embeddings, edge ids, scores and a step counter are kept.

Bounded (``capacity`` entries per edge, the oldest replaced first), decayed (an entry's weight halves every
``half_life`` recorded queries), persisted to one ``.npz`` file (written atomically), resettable (delete the file
or call :meth:`RoutingMemory.reset`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from shared.config import CloudQueryConfig
from shared.core.errors import ConfigError
from shared.core.knowledge import CloudAnswer, EdgeKnowledge

SAVE_EVERY = 20
"""The memory is written to its file every this many recorded queries (and when the cloud stops)."""
MIN_SIMILARITY = 0.8
"""A remembered question counts for a new one only above this cosine (close paraphrases, the same topic)."""


@dataclass
class _EdgeMemory:
    vectors: np.ndarray
    usefulness: np.ndarray
    steps: np.ndarray
    size: int = 0
    cursor: int = 0


@dataclass
class RoutingMemory:
    dim: int
    capacity: int = 256
    half_life: float = 500.0
    path: Path | None = None
    step: int = 0
    _edges: dict[str, _EdgeMemory] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.capacity < 1 or self.half_life <= 0:
            raise ConfigError("query.memory_capacity must be >= 1 and query.memory_half_life > 0")
        if self.path is not None and self.path.is_file():
            self._load(self.path)

    def record(self, question_vector: np.ndarray, usefulness: dict[str, float]) -> None:
        """Remember one answered question: ``usefulness`` in [0, 1] per edge probed or asked."""
        self.step += 1
        vector = _unit(question_vector, self.dim)
        for edge_id, value in usefulness.items():
            memory = self._edges.get(edge_id)
            if memory is None:
                memory = self._edges[edge_id] = _EdgeMemory(
                    np.zeros((self.capacity, self.dim), np.float32),
                    np.zeros(self.capacity, np.float32),
                    np.zeros(self.capacity, np.int64),
                )
            i = memory.cursor
            memory.vectors[i], memory.usefulness[i], memory.steps[i] = vector, min(max(value, 0.0), 1.0), self.step
            memory.cursor = (i + 1) % self.capacity
            memory.size = min(memory.size + 1, self.capacity)

    def prior(self, question_vector: np.ndarray) -> dict[str, float]:
        """Each edge's remembered usefulness for questions like this one (only edges with a close memory)."""
        vector = _unit(question_vector, self.dim)
        out: dict[str, float] = {}
        for edge_id, memory in self._edges.items():
            n = memory.size
            sims = memory.vectors[:n] @ vector
            close = sims >= MIN_SIMILARITY
            if not close.any():
                continue
            decay = 0.5 ** ((self.step - memory.steps[:n][close]) / self.half_life)
            weights = sims[close] * decay
            out[edge_id] = float((weights * memory.usefulness[:n][close]).sum() / weights.sum())
        return out

    def entries(self) -> int:
        return sum(m.size for m in self._edges.values())

    def save(self) -> None:
        """Write the memory to ``path`` in one step (a crash never leaves half a file)."""
        if self.path is None:
            return
        arrays: dict[str, np.ndarray] = {"step": np.asarray([self.step]), "edges": np.asarray(sorted(self._edges))}
        for i, edge_id in enumerate(sorted(self._edges)):
            m = self._edges[edge_id]
            arrays |= {f"v{i}": m.vectors[: m.size], f"u{i}": m.usefulness[: m.size], f"s{i}": m.steps[: m.size]}
        temporary = self.path.with_name(self.path.name + ".tmp.npz")
        np.savez(temporary, **arrays)  # type: ignore[arg-type]
        os.replace(temporary, self.path)

    def _load(self, path: Path) -> None:
        try:
            with np.load(path, allow_pickle=False) as data:
                self.step = int(data["step"][0])
                for i, edge_id in enumerate(data["edges"]):
                    vectors, usefulness, steps = data[f"v{i}"], data[f"u{i}"], data[f"s{i}"]
                    if vectors.shape[1] != self.dim:
                        raise ValueError(f"its vectors have {vectors.shape[1]} dimensions, the embedder {self.dim}")
                    keep = min(len(vectors), self.capacity)
                    memory = _EdgeMemory(
                        np.zeros((self.capacity, self.dim), np.float32),
                        np.zeros(self.capacity, np.float32),
                        np.zeros(self.capacity, np.int64),
                        keep,
                        keep % self.capacity,
                    )
                    memory.vectors[:keep], memory.usefulness[:keep] = vectors[-keep:], usefulness[-keep:]
                    memory.steps[:keep] = steps[-keep:]
                    self._edges[str(edge_id)] = memory
        except (OSError, KeyError, ValueError, IndexError) as exc:
            raise ConfigError(
                f"routing memory {path} cannot be read ({exc}); delete it to start with an empty memory"
            ) from exc


def _unit(vector: np.ndarray, dim: int) -> np.ndarray:
    v = np.asarray(vector, dtype=np.float32).reshape(-1)
    if v.shape[0] != dim:
        raise ValueError(f"a question vector has {v.shape[0]} dimensions; the memory holds {dim}")
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else v


def open_memory(config: CloudQueryConfig, dim: int) -> RoutingMemory | None:
    """The cloud's routing memory when the config uses or persists one."""
    if config.memory_weight <= 0 and not config.memory_file:
        return None
    path = Path(config.memory_file) if config.memory_file else None
    return RoutingMemory(dim, config.memory_capacity, config.memory_half_life, path)


def usefulness(answer: CloudAnswer, replies: Sequence[EdgeKnowledge]) -> dict[str, float]:
    """How useful each edge proved for one answered question: an asked edge, half its retrieval evidence and half
    whether its chunks made the merged context; a probed edge not asked, its probe score; a failed one, 0."""
    out = {p.edge_id: p.score for p in answer.probes if not p.error}
    in_context = {c.edge_id for c in answer.context}
    for knowledge in replies:
        out[knowledge.edge_id] = 0.5 * knowledge.evidence + 0.5 * (knowledge.edge_id in in_context)
    for edge_id in answer.edges_failed:
        out[edge_id] = 0.0
    return out
