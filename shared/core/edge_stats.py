"""What an edge holds: the one stats record an edge's API, its CLI, its gRPC reply and a client of a running edge
all use."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class EdgeStats:
    """What an edge holds. ``cloud_connected`` is known only to a running edge (``dgrag edge serve``); the
    graph state, mention origins and document ids only where the store is open in process."""

    edge_id: str | None
    documents: int
    chunks: int
    entities: int
    relations: int
    subgraphs: int
    summaries: int
    pending_publications: int
    bytes_on_disk: int
    cloud_connected: bool = False
    graph_dirty: bool = False
    origins: dict[str, Any] = field(default_factory=dict)
    document_ids: list[str] = field(default_factory=list)
