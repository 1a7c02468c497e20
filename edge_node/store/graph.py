"""The edge's knowledge graph's nodes in memory for retrieval: entities by id and by name, and relations, loaded
from the store and reloaded when the store's generation moves on (partitioning reads the links itself).
"""

from __future__ import annotations

from dataclasses import dataclass

from edge_node.store.records import EntityRow, RelationRow
from edge_node.store.sqlite_store import SqliteStore


@dataclass
class KnowledgeGraph:
    """One edge's entities and relations, for retrieval."""

    generation: int
    entities: dict[int, EntityRow]
    relations: dict[int, RelationRow]
    entity_by_key: dict[str, int]

    @classmethod
    def load(cls, store: SqliteStore) -> KnowledgeGraph:
        entities = {e.id: e for e in store.entities()}
        return cls(
            generation=store.generation,
            entities=entities,
            relations={r.id: r for r in store.relations()},
            entity_by_key={e.key: e.id for e in entities.values()},
        )
