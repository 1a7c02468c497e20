"""The in-memory twin of the SQLite store: the same contract (:class:`~edge_node.store.protocol.EdgeStore`),
kept in dictionaries, for fast tests and throwaway edges. Nothing survives the process.

It mirrors the SQLite store's semantics where callers can see them: ids count up from the largest in use
(a deleted last row's id comes back, as SQLite's rowids do), publication sequence numbers never repeat,
deleting a document takes its chunks and their mentions, deleting an entity takes its relations, and a
failed transaction leaves everything as it was.
"""

from __future__ import annotations

import contextlib
import copy
import sqlite3
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from edge_node.store.memory_tables import Tables, blob, next_id
from edge_node.store.protocol import EdgeStore
from edge_node.store.records import (
    ChunkRow,
    DocumentInput,
    EntityRow,
    InsertedDocument,
    PublicationEntry,
    RelationRow,
    RemovedDocument,
    StoreCounts,
    SubgraphRecord,
    Vector,
)
from shared.core.constants import SCHEMA_VERSION
from shared.core.errors import StoreError
from shared.core.text import normalise_name


class MemoryStore:
    """One edge's store, in memory."""

    def __init__(self, path: Path = Path(":memory:")) -> None:
        self.path = path
        self._t = Tables()
        self._in_tx = False

    def close(self) -> None:
        """Nothing to release."""

    # identity and transactions

    def get_meta(self, key: str) -> str | None:
        return self._t.meta.get(key)

    def set_meta(self, key: str, value: str) -> None:
        self._t.meta[key] = value

    def check_identity(self, edge_id: str, embedder: str, dim: int) -> None:
        with self.transaction():
            expected = {
                "schema_version": str(SCHEMA_VERSION),
                "edge_id": edge_id,
                "embedder": embedder,
                "dim": str(dim),
            }
            for key, value in expected.items():
                stored = self.get_meta(key)
                if stored is None:
                    self.set_meta(key, value)
                elif stored != value:
                    raise StoreError(f"this store was built with {key}={stored!r}, not {value!r}")

    @property
    def generation(self) -> int:
        return int(self.get_meta("generation") or 0)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        if self._in_tx:
            yield
            return
        before = copy.deepcopy(self._t)
        self._in_tx = True
        try:
            yield
            self.set_meta("generation", str(self.generation + 1))
        except BaseException:
            self._t = before
            raise
        finally:
            self._in_tx = False

    # documents and the graph's rows

    def document_hash(self, doc_id: str) -> str | None:
        row = self._t.documents.get(doc_id)
        return None if row is None else row[2]

    def document_ids(self) -> list[str]:
        return sorted(self._t.documents)

    def insert_document(self, doc: DocumentInput) -> InsertedDocument:
        self._t.documents[doc.doc_id] = (doc.title, doc.source, doc.content_hash, doc.n_chars, time.time())
        out = InsertedDocument()
        for chunk in doc.chunks:
            cid = next_id(self._t.chunks)
            self._t.chunks[cid] = {
                "doc_id": doc.doc_id,
                "idx": chunk.idx,
                "tokens": chunk.tokens,
                "text": chunk.text,
                "vector": blob(chunk.vector),
            }
            out.chunk_vectors[cid] = chunk.vector
            ids: dict[str, int] = {}
            for ent in chunk.entities:
                eid = self._entity_id(ent.name, ent.type)
                ids[normalise_name(ent.name)] = eid
                out.entities.add(eid)
                self._t.entity_mentions.setdefault((eid, cid), (ent.type, ent.description, ent.origin))
            for rel in chunk.relations:
                a, b = ids.get(normalise_name(rel.source)), ids.get(normalise_name(rel.target))
                if a is None or b is None or a == b:
                    continue
                rid = self._relation_id(min(a, b), max(a, b))
                out.relations.add(rid)
                mention = (rel.description, rel.keywords, rel.weight, rel.origin)
                self._t.relation_mentions.setdefault((rid, cid), mention)
        return out

    def _entity_id(self, name: str, etype: str) -> int:
        key = normalise_name(name)
        for eid, row in self._t.entities.items():
            if row["key"] == key:
                return eid
        eid = next_id(self._t.entities)
        self._t.entities[eid] = {"key": key, "name": name, "type": etype, "description": "", "vector": b""}
        return eid

    def _relation_id(self, src: int, tgt: int) -> int:
        for rid, row in self._t.relations.items():
            if (row["src"], row["tgt"]) == (src, tgt):
                return rid
        rid = next_id(self._t.relations)
        self._t.relations[rid] = {
            "src": src,
            "tgt": tgt,
            "description": "",
            "keywords": "",
            "weight": 0.0,
            "vector": b"",
        }
        return rid

    def rename_document(self, old: str, new: str) -> bool:
        if old not in self._t.documents or new in self._t.documents:
            return False
        self._t.documents[new] = self._t.documents.pop(old)
        for row in self._t.chunks.values():
            if row["doc_id"] == old:
                row["doc_id"] = new
        return True

    def remove_document(self, doc_id: str) -> RemovedDocument | None:
        if doc_id not in self._t.documents:
            return None
        chunk_ids = sorted(c for c, row in self._t.chunks.items() if row["doc_id"] == doc_id)
        gone = set(chunk_ids)
        entities = {e for e, c in self._t.entity_mentions if c in gone}
        relations = {r for r, c in self._t.relation_mentions if c in gone}
        del self._t.documents[doc_id]
        for cid in chunk_ids:
            del self._t.chunks[cid]
        self._t.entity_mentions = {k: v for k, v in self._t.entity_mentions.items() if k[1] not in gone}
        self._t.relation_mentions = {k: v for k, v in self._t.relation_mentions.items() if k[1] not in gone}
        return RemovedDocument(chunk_ids, entities, relations)

    def entity_mentions(self, entity_id: int) -> list[tuple[str, str]]:
        return [(t, d) for (e, _), (t, d, _) in sorted(self._t.entity_mentions.items()) if e == entity_id]

    def entity_name(self, entity_id: int) -> str:
        return str(self._t.entities[entity_id]["name"])

    def update_entity(self, entity_id: int, etype: str, description: str) -> None:
        self._t.entities[entity_id].update(type=etype, description=description)

    def set_entity_vector(self, entity_id: int, vector: Vector) -> None:
        self._t.entities[entity_id]["vector"] = blob(vector)

    def delete_entity(self, entity_id: int) -> list[int]:
        relation_ids = sorted(r for r, row in self._t.relations.items() if entity_id in (row["src"], row["tgt"]))
        for rid in relation_ids:
            self.delete_relation(rid)
        self._t.entities.pop(entity_id, None)
        self._t.entity_mentions = {k: v for k, v in self._t.entity_mentions.items() if k[0] != entity_id}
        return relation_ids

    def relation_mentions(self, relation_id: int) -> list[tuple[str, str, float]]:
        items = sorted(self._t.relation_mentions.items())
        return [(d, k, w) for (r, _), (d, k, w, _) in items if r == relation_id]

    def relation_names(self, relation_id: int) -> tuple[str, str]:
        row = self._t.relations[relation_id]
        return self.entity_name(row["src"]), self.entity_name(row["tgt"])

    def update_relation(self, relation_id: int, description: str, keywords: str, weight: float) -> None:
        self._t.relations[relation_id].update(description=description, keywords=keywords, weight=weight)

    def set_relation_vector(self, relation_id: int, vector: Vector) -> None:
        self._t.relations[relation_id]["vector"] = blob(vector)

    def delete_relation(self, relation_id: int) -> None:
        self._t.relations.pop(relation_id, None)
        self._t.relation_mentions = {k: v for k, v in self._t.relation_mentions.items() if k[0] != relation_id}

    def mark_graph_dirty(self) -> None:
        self.set_meta("graph_dirty", "1")

    def graph_dirty(self) -> bool:
        return self.get_meta("graph_dirty") == "1"

    # reads

    def counts(self) -> StoreCounts:
        t = self._t
        summaries = sum(1 for s in t.subgraphs.values() if s.get("text") is not None)
        pending = sum(1 for e in t.log if e["published_at"] is None)
        return StoreCounts(
            len(t.documents), len(t.chunks), len(t.entities), len(t.relations), len(t.subgraphs), summaries, pending
        )

    def vectors(self, table: str) -> Iterator[tuple[int, bytes]]:
        rows = {"chunks": self._t.chunks, "entities": self._t.entities, "relations": self._t.relations}.get(table)
        if rows is None:
            raise ValueError(f"no vectors in table {table!r}")
        yield from ((i, bytes(r["vector"])) for i, r in sorted(rows.items()))

    def entities(self) -> list[EntityRow]:
        return [
            EntityRow(i, r["key"], r["name"], r["type"], r["description"]) for i, r in sorted(self._t.entities.items())
        ]

    def relations(self) -> list[RelationRow]:
        return [
            RelationRow(i, r["src"], r["tgt"], r["description"], r["keywords"], float(r["weight"]))
            for i, r in sorted(self._t.relations.items())
        ]

    def entity_chunk_links(self) -> list[tuple[int, int]]:
        return sorted(self._t.entity_mentions)

    def chunks_by_id(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        out = {}
        for cid in ids:
            row = self._t.chunks.get(cid)
            if row is not None:
                out[cid] = ChunkRow(cid, row["doc_id"], row["idx"], row["tokens"], row["text"])
        return out

    def chunk_rows(self) -> list[tuple[int, str, int]]:
        return [(i, r["doc_id"], r["idx"]) for i, r in sorted(self._t.chunks.items())]

    def chunk_texts(self) -> Iterator[str]:
        yield from (str(r["text"]) for _, r in sorted(self._t.chunks.items()))

    def mention_stats(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for table, mentions in (
            ("entity_mentions", self._t.entity_mentions),
            ("relation_mentions", self._t.relation_mentions),
        ):
            for value in mentions.values():
                key = f"{table}.{value[-1]}"
                out[key] = out.get(key, 0) + 1
        linked = {c for _, c in self._t.entity_mentions}
        out["chunks_without_entities"] = sum(1 for c in self._t.chunks if c not in linked)
        return out

    # subgraphs, summaries and the publication log

    def subgraphs(self) -> list[SubgraphRecord]:
        return [
            SubgraphRecord(
                sid,
                s["version"],
                s["fingerprint"],
                s["members"],
                s["text"],
                s["top_entities"],
                s["n_entities"],
                s["n_relations"],
                s["updated_at"],
            )
            for sid, s in sorted(self._t.subgraphs.items())
        ]

    def save_subgraphs(self, upserts: Sequence[SubgraphRecord], deletions: Sequence[tuple[str, int]]) -> None:
        now = time.time()
        with self.transaction():
            for sid, version in deletions:
                self._t.subgraphs.pop(sid, None)
                self._log(sid, version, "delete", now)
            for sg in upserts:
                self._t.subgraphs[sg.id] = {
                    "version": sg.version,
                    "fingerprint": sg.fingerprint,
                    "members": tuple(sg.members),
                    "text": sg.summary,
                    "top_entities": tuple(sg.top_entities),
                    "n_entities": sg.n_entities,
                    "n_relations": sg.n_relations,
                    "updated_at": now,
                }
                self._log(sg.id, sg.version, "upsert", now)
            self.set_meta("graph_dirty", "0")

    def _log(self, summary_id: str, version: int, op: str, now: float) -> None:
        self._t.last_seq += 1
        self._t.log.append(
            {
                "seq": self._t.last_seq,
                "summary_id": summary_id,
                "version": version,
                "op": op,
                "created_at": now,
                "published_at": None,
            }
        )

    def max_tombstone_version(self, summary_id: str) -> int:
        return max((e["version"] for e in self._t.log if e["summary_id"] == summary_id), default=0)

    def _entries(self, keep: Any) -> list[PublicationEntry]:
        return [
            PublicationEntry(e["seq"], e["summary_id"], e["version"], e["op"], e["created_at"])
            for e in self._t.log
            if keep(e)
        ]

    def pending_publications(self) -> list[PublicationEntry]:
        return self._entries(lambda e: e["published_at"] is None)

    def last_publication_seq(self) -> int:
        return max((e["seq"] for e in self._t.log), default=0)

    def publications_after(self, seq: int) -> list[PublicationEntry]:
        return self._entries(lambda e: e["seq"] > seq)

    def mark_published(self, up_to_seq: int) -> None:
        with self.transaction():
            now = time.time()
            for e in self._t.log:
                if e["seq"] <= up_to_seq and e["published_at"] is None:
                    e["published_at"] = now

    # what the SLM said

    def name_types(self) -> dict[str, str]:
        if self._t.name_types:
            return dict(self._t.name_types)
        known: dict[str, str] = {}
        for (eid, _), (etype, _, origin) in sorted(self._t.entity_mentions.items(), key=lambda kv: kv[0][1]):
            if origin == "slm":
                known.setdefault(self._t.entities[eid]["key"], etype)
        return known

    def remember_name_types(self, items: Sequence[tuple[str, str]]) -> None:
        for key, etype in items:
            self._t.name_types.setdefault(key, etype)

    def cache_get(self, key: str) -> str | None:
        return self._t.llm_cache.get(key)

    def cache_put(self, key: str, value: str) -> None:
        self._t.llm_cache[key] = value

    def copy_llm_cache_from(self, other: Path) -> None:
        try:
            with contextlib.closing(sqlite3.connect(f"{other.resolve().as_uri()}?mode=ro", uri=True)) as db:
                rows = db.execute("SELECT key, value FROM llm_cache").fetchall()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{other} holds no usable model-answer cache: {exc}") from exc
        for key, value in rows:
            self._t.llm_cache.setdefault(str(key), str(value))


def _meets_the_contract(store: MemoryStore) -> EdgeStore:
    return store  # mypy checks here that MemoryStore implements every method of EdgeStore
