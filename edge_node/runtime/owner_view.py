"""What the device owner's page shows of the edge's own store: its documents, the summaries it publishes, and
the passages and whole texts of its own chunks (transport-free; run on the runtime's worker thread)."""

from __future__ import annotations

from dataclasses import dataclass

from edge_node.store.knowledge_base import EdgeKnowledgeBase
from edge_node.store.sqlite_store import SqliteStore


@dataclass(frozen=True)
class SummaryShown:
    """A summary this edge publishes to the cloud (the only text of it the cloud holds)."""

    id: str
    version: int
    text: str
    top_entities: tuple[str, ...]


@dataclass(frozen=True)
class DocumentState:
    """One document: indexed (it is stored), and whether a summary covers it (one of its names is a member of a
    summarised subgraph)."""

    doc_id: str
    summarised: bool
    title: str = ""
    chars: int = 0
    stored_at: float = 0.0


@dataclass(frozen=True)
class OwnerView:
    """The edge's documents and what the cloud holds of them."""

    documents: tuple[DocumentState, ...]
    chunks: int
    summaries: tuple[SummaryShown, ...]
    summaries_pending: bool
    """A write changed the graph and its summaries are not yet refreshed."""
    publications_pending: int
    """Summary changes not yet acknowledged by the cloud."""


def owner_view(kb: EdgeKnowledgeBase) -> OwnerView:
    store = kb.store
    summarised = [s for s in store.subgraphs() if s.summary.strip()]
    return OwnerView(
        documents=_document_states(store, {key for sub in summarised for key in sub.members}),
        chunks=store.counts().chunks,
        summaries=tuple(SummaryShown(s.id, s.version, s.summary, s.top_entities) for s in summarised),
        summaries_pending=store.graph_dirty(),
        publications_pending=len(store.pending_publications()),
    )


def _document_states(store: SqliteStore, summarised_keys: set[str]) -> tuple[DocumentState, ...]:
    """Each document, and whether one of its names is among ``summarised_keys`` (members of a summary)."""
    key_of = {e.id: e.key for e in store.entities()}
    doc_of = {chunk: doc for chunk, doc, _ in store.chunk_rows()}
    covered = {doc_of[c] for e, c in store.entity_chunk_links() if c in doc_of and key_of.get(e) in summarised_keys}
    return tuple(
        DocumentState(d.doc_id, d.doc_id in covered, d.title, d.chars, d.stored_at) for d in store.document_rows()
    )


def chunk_passages(kb: EdgeKnowledgeBase, chunk_ids: list[int]) -> dict[int, tuple[str, str]]:
    """(document id, text) of this edge's chunks ``chunk_ids`` (those it does not hold are left out)."""
    return {i: (row.doc_id, row.text) for i, row in kb.store.chunks_by_id(chunk_ids).items()}


def document_text(kb: EdgeKnowledgeBase, doc_id: str) -> str | None:
    """The text of ``doc_id`` as this edge stored it (its chunks in order), None when it holds no such document."""
    store = kb.store
    ids = sorted((idx, chunk_id) for chunk_id, doc, idx in store.chunk_rows() if doc == doc_id)
    if not ids:
        return None
    rows = store.chunks_by_id([chunk_id for _, chunk_id in ids])
    return "\n\n".join(rows[chunk_id].text for _, chunk_id in ids if chunk_id in rows)
