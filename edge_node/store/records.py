"""Plain records passed in and out of the edge store."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]


@dataclass(frozen=True)
class ExtractedEntity:
    """An entity found in a chunk; ``name`` occurs in the chunk."""

    name: str
    type: str
    description: str
    origin: str


@dataclass(frozen=True)
class ExtractedRelation:
    """A relation between two entities of the same chunk (by name)."""

    source: str
    target: str
    description: str
    keywords: str
    weight: float
    origin: str


@dataclass(frozen=True)
class ChunkInput:
    """A chunk to store, with its embedding and the entities and relations found in it."""

    idx: int
    start: int
    end: int
    tokens: int
    text: str
    vector: Vector
    entities: tuple[ExtractedEntity, ...]
    relations: tuple[ExtractedRelation, ...]


@dataclass(frozen=True)
class DocumentInput:
    """A whole document version to store."""

    doc_id: str
    title: str
    source: str
    content_hash: str
    n_chars: int
    chunks: tuple[ChunkInput, ...]


@dataclass
class InsertedDocument:
    """What storing a document created or touched: its chunks' vectors, the entities and relations it mentions."""

    chunk_vectors: dict[int, Vector] = field(default_factory=dict)
    entities: set[int] = field(default_factory=set)
    relations: set[int] = field(default_factory=set)


@dataclass(frozen=True)
class RemovedDocument:
    """What deleting a document removed (chunks) or touched (the entities and relations it mentioned)."""

    chunk_ids: list[int]
    entities: set[int]
    relations: set[int]


@dataclass
class VectorDelta:
    """Vectors to add or replace, and ids to remove, in one faiss index."""

    upserts: dict[int, Vector] = field(default_factory=dict)
    removed: set[int] = field(default_factory=set)

    def merge(self, other: VectorDelta) -> None:
        for vid in other.removed:
            self.upserts.pop(vid, None)
        self.removed |= other.removed
        for vid, vec in other.upserts.items():
            self.removed.discard(vid)
            self.upserts[vid] = vec


@dataclass
class StoreDelta:
    """What a store write changed in each vector space."""

    chunks: VectorDelta = field(default_factory=VectorDelta)
    entities: VectorDelta = field(default_factory=VectorDelta)
    relations: VectorDelta = field(default_factory=VectorDelta)

    def merge(self, other: StoreDelta) -> None:
        self.chunks.merge(other.chunks)
        self.entities.merge(other.entities)
        self.relations.merge(other.relations)


@dataclass(frozen=True)
class StoreCounts:
    """Sizes of an edge knowledge base."""

    documents: int
    chunks: int
    entities: int
    relations: int
    subgraphs: int
    summaries: int
    pending_publications: int


@dataclass(frozen=True)
class EntityRow:
    id: int
    key: str
    name: str
    type: str
    description: str


@dataclass(frozen=True)
class RelationRow:
    id: int
    src_id: int
    tgt_id: int
    description: str
    keywords: str
    weight: float


@dataclass(frozen=True)
class SubgraphRecord:
    """A stored subgraph and its summary."""

    id: str
    version: int
    fingerprint: str
    members: tuple[str, ...]
    summary: str
    top_entities: tuple[str, ...]
    n_entities: int
    n_relations: int
    updated_at: float


@dataclass(frozen=True)
class PublicationEntry:
    """One summary change waiting for (or done with) publication to the cloud."""

    seq: int
    summary_id: str
    version: int
    op: str
    created_at: float


@dataclass(frozen=True)
class DocumentRow:
    """A stored document as its owner's list shows it."""

    doc_id: str
    title: str
    chars: int
    stored_at: float
    """When this version was stored (seconds since the epoch)."""


@dataclass(frozen=True)
class ChunkRow:
    """A stored chunk."""

    id: int
    doc_id: str
    idx: int
    tokens: int
    text: str
