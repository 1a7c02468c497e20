"""How mentions become one entity or relation, and the writes that keep them so.

An entity mentioned in several chunks takes the type most of its mentions give (the first of equals), the
distinct descriptions joined in chunk order, and a vector of ``"name (type): description"``; a relation joins
its descriptions and keywords, sums its weights and embeds ``"a — b: description keywords"``. An entity or
relation left without mentions is deleted (an entity takes its relations with it).

:func:`write_document` and :func:`delete_document` run one transaction each: a crash leaves the store as before
or after the document, never half.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from edge_node.store.records import DocumentInput, StoreDelta
from edge_node.store.sqlite_store import SqliteStore
from shared.core.errors import DocumentNotFoundError
from shared.core.text import truncate_chars

EmbedFn = Callable[[Sequence[str]], np.ndarray]
DESCRIPTION_SEPARATOR = " | "
MAX_KEYWORD_CHARS = 200


def write_document(store: SqliteStore, doc: DocumentInput, embed: EmbedFn, max_chars: int) -> StoreDelta:
    """Store ``doc``, replacing any previous version of it everywhere, in one transaction."""
    with store.transaction():
        delta = _remove(store, doc.doc_id, embed, max_chars, missing_ok=True)
        inserted = store.insert_document(doc)
        delta.chunks.upserts.update(inserted.chunk_vectors)
        delta.merge(refresh_entities(store, inserted.entities, embed, max_chars))
        delta.merge(refresh_relations(store, inserted.relations, embed, max_chars))
        store.mark_graph_dirty()
    return delta


def delete_document(store: SqliteStore, doc_id: str, embed: EmbedFn, max_chars: int) -> StoreDelta:
    """Remove ``doc_id`` with its chunks, links, vectors and the entities/relations only it supported."""
    with store.transaction():
        delta = _remove(store, doc_id, embed, max_chars, missing_ok=False)
        store.mark_graph_dirty()
    return delta


def _remove(store: SqliteStore, doc_id: str, embed: EmbedFn, max_chars: int, missing_ok: bool) -> StoreDelta:
    delta = StoreDelta()
    removed = store.remove_document(doc_id)
    if removed is None:
        if missing_ok:
            return delta
        raise DocumentNotFoundError(f"no document {doc_id!r} in this edge; `dgrag edge stats` lists the counts")
    delta.chunks.removed.update(removed.chunk_ids)
    delta.merge(refresh_relations(store, removed.relations, embed, max_chars))
    delta.merge(refresh_entities(store, removed.entities, embed, max_chars))
    return delta


def merge_descriptions(descriptions: list[str], max_chars: int) -> str:
    merged = DESCRIPTION_SEPARATOR.join(dict.fromkeys(d.strip() for d in descriptions if d.strip()))
    return truncate_chars(merged, max_chars)


def entity_text(name: str, etype: str, description: str) -> str:
    """What an entity's vector is made from."""
    return f"{name} ({etype}): {description}"


def relation_text(src: str, tgt: str, description: str, keywords: str) -> str:
    """What a relation's vector is made from."""
    return f"{src} — {tgt}: {description} {keywords}".strip()


def refresh_entities(store: SqliteStore, ids: set[int], embed: EmbedFn, max_chars: int) -> StoreDelta:
    """Recompute merged type/description/vector of ``ids``; delete those left without mentions."""
    delta = StoreDelta()
    texts: list[str] = []
    keep: list[int] = []
    for eid in sorted(ids):
        mentions = store.entity_mentions(eid)
        if not mentions:
            delta.relations.removed.update(store.delete_entity(eid))
            delta.entities.removed.add(eid)
            continue
        etype = Counter(t for t, _ in mentions).most_common(1)[0][0]
        description = merge_descriptions([d for _, d in mentions], max_chars)
        store.update_entity(eid, etype, description)
        texts.append(entity_text(store.entity_name(eid), etype, description))
        keep.append(eid)
    if keep:
        vectors = np.asarray(embed(texts), dtype=np.float32)
        for eid, vec in zip(keep, vectors, strict=True):
            store.set_entity_vector(eid, vec)
            delta.entities.upserts[eid] = vec
    return delta


def refresh_relations(store: SqliteStore, ids: set[int], embed: EmbedFn, max_chars: int) -> StoreDelta:
    """Recompute merged description/keywords/weight/vector of ``ids``; delete those left without mentions."""
    delta = StoreDelta()
    texts: list[str] = []
    keep: list[int] = []
    for rid in sorted(ids):
        mentions = store.relation_mentions(rid)
        if not mentions:
            store.delete_relation(rid)
            delta.relations.removed.add(rid)
            continue
        description = merge_descriptions([d for d, _, _ in mentions], max_chars)
        keywords = ", ".join(dict.fromkeys(k.strip() for _, ks, _ in mentions for k in ks.split(",") if k.strip()))
        weight = float(sum(w for _, _, w in mentions))
        store.update_relation(rid, description, keywords[:MAX_KEYWORD_CHARS], weight)
        src, tgt = store.relation_names(rid)
        texts.append(relation_text(src, tgt, description, keywords))
        keep.append(rid)
    if keep:
        vectors = np.asarray(embed(texts), dtype=np.float32)
        for rid, vec in zip(keep, vectors, strict=True):
            store.set_relation_vector(rid, vec)
            delta.relations.upserts[rid] = vec
    return delta
