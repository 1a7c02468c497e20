"""The tables of :class:`~edge_node.store.memory_store.MemoryStore`, as dictionaries, and how it makes ids and
vector blobs as the SQLite store does."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from edge_node.store.records import Vector


@dataclass
class Tables:
    """The memory store's rows, table by table (what SQLite holds in edge_node/store/schema.sql)."""

    meta: dict[str, str] = field(default_factory=dict)
    documents: dict[str, tuple[str, str, str, int, float]] = field(default_factory=dict)
    chunks: dict[int, dict[str, Any]] = field(default_factory=dict)
    entities: dict[int, dict[str, Any]] = field(default_factory=dict)
    entity_mentions: dict[tuple[int, int], tuple[str, str, str]] = field(default_factory=dict)
    relations: dict[int, dict[str, Any]] = field(default_factory=dict)
    relation_mentions: dict[tuple[int, int], tuple[str, str, float, str]] = field(default_factory=dict)
    subgraphs: dict[str, dict[str, Any]] = field(default_factory=dict)
    log: list[dict[str, Any]] = field(default_factory=list)
    last_seq: int = 0
    name_types: dict[str, str] = field(default_factory=dict)
    llm_cache: dict[str, str] = field(default_factory=dict)


def next_id(table: dict[int, Any]) -> int:
    """The id SQLite would give a new row: one more than the largest in use."""
    return max(table, default=0) + 1


def blob(vector: Vector) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()
