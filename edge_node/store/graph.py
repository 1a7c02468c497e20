"""The edge's heterogeneous knowledge graph in memory: entity nodes, chunk nodes, entity–entity relation
edges and entity–chunk links, loaded from the store and reloaded when the store's generation moves on.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from edge_node.store.protocol import EdgeStore
from edge_node.store.records import EntityRow, RelationRow


@dataclass
class KnowledgeGraph:
    """Adjacency of one edge's knowledge, for retrieval."""

    generation: int
    entities: dict[int, EntityRow]
    relations: dict[int, RelationRow]
    entity_by_key: dict[str, int]
    neighbours: dict[int, dict[int, int]] = field(default_factory=dict)
    """entity id -> {neighbour entity id: relation id}"""
    entity_chunks: dict[int, set[int]] = field(default_factory=dict)
    chunk_entities: dict[int, set[int]] = field(default_factory=dict)

    @classmethod
    def load(cls, store: EdgeStore) -> KnowledgeGraph:
        entities = {e.id: e for e in store.entities()}
        relations = {r.id: r for r in store.relations()}
        neighbours: dict[int, dict[int, int]] = defaultdict(dict)
        for r in relations.values():
            neighbours[r.src_id][r.tgt_id] = r.id
            neighbours[r.tgt_id][r.src_id] = r.id
        entity_chunks: dict[int, set[int]] = defaultdict(set)
        chunk_entities: dict[int, set[int]] = defaultdict(set)
        for eid, cid in store.entity_chunk_links():
            entity_chunks[eid].add(cid)
            chunk_entities[cid].add(eid)
        return cls(
            generation=store.generation,
            entities=entities,
            relations=relations,
            entity_by_key={e.key: e.id for e in entities.values()},
            neighbours=dict(neighbours),
            entity_chunks=dict(entity_chunks),
            chunk_entities=dict(chunk_entities),
        )
