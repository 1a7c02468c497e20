"""Documents, chunks, entities, relations and their mentions in the SQLite store: rows only, no policy.

How mentions merge into an entity or relation (type vote, descriptions, the text that is embedded) is the
ingest's business (:mod:`edge_node.ingest.merge_policy`); this part stores what it is given and cascades
deletions (a document takes its chunks and their mentions; an entity takes its relations).
"""

from __future__ import annotations

import time

import numpy as np

from edge_node.store.records import DocumentInput, DocumentRow, InsertedDocument, RemovedDocument, Vector
from edge_node.store.sqlite_core import SqliteCore
from shared.core.text import normalise_name


def blob(vector: Vector) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


class DocumentRows(SqliteCore):
    """The document and graph tables of :class:`~edge_node.store.sqlite_store.SqliteStore` (one of its bases)."""

    def document_hash(self, doc_id: str) -> str | None:
        row = self._db.execute("SELECT content_hash FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
        return None if row is None else str(row[0])

    def document_ids(self) -> list[str]:
        return [str(r[0]) for r in self._db.execute("SELECT doc_id FROM documents ORDER BY doc_id")]

    def document_rows(self) -> list[DocumentRow]:
        query = "SELECT doc_id, title, n_chars, ingested_at FROM documents ORDER BY doc_id"
        return [DocumentRow(str(d), str(t), int(n), float(at)) for d, t, n, at in self._db.execute(query)]

    def insert_document(self, doc: DocumentInput) -> InsertedDocument:
        """Store a new document with its chunks and mentions (entities and relations are found or created by
        name); the caller has removed any earlier version. Returns the new chunks' vectors and the ids touched."""
        self._db.execute(
            "INSERT INTO documents(doc_id, title, source, content_hash, n_chars, ingested_at) VALUES(?,?,?,?,?,?)",
            (doc.doc_id, doc.title, doc.source, doc.content_hash, doc.n_chars, time.time()),
        )
        out = InsertedDocument()
        for chunk in doc.chunks:
            cur = self._db.execute(
                'INSERT INTO chunks(doc_id, idx, start, "end", tokens, text, vector) VALUES(?,?,?,?,?,?,?)',
                (doc.doc_id, chunk.idx, chunk.start, chunk.end, chunk.tokens, chunk.text, blob(chunk.vector)),
            )
            chunk_id = int(cur.lastrowid or 0)
            out.chunk_vectors[chunk_id] = chunk.vector
            ids: dict[str, int] = {}
            for ent in chunk.entities:
                eid = self._entity_id(ent.name, ent.type)
                ids[normalise_name(ent.name)] = eid
                out.entities.add(eid)
                self._db.execute(
                    "INSERT OR IGNORE INTO entity_mentions(entity_id, chunk_id, type, description, origin) "
                    "VALUES(?,?,?,?,?)",
                    (eid, chunk_id, ent.type, ent.description, ent.origin),
                )
            for rel in chunk.relations:
                a, b = ids.get(normalise_name(rel.source)), ids.get(normalise_name(rel.target))
                if a is None or b is None or a == b:
                    continue
                rid = self._relation_id(min(a, b), max(a, b))
                out.relations.add(rid)
                self._db.execute(
                    "INSERT OR IGNORE INTO relation_mentions(relation_id, chunk_id, description, keywords, weight,"
                    " origin) VALUES(?,?,?,?,?,?)",
                    (rid, chunk_id, rel.description, rel.keywords, rel.weight, rel.origin),
                )
        return out

    def remove_document(self, doc_id: str) -> RemovedDocument | None:
        """Delete ``doc_id`` with its chunks and their mentions; None when there is no such document."""
        if self.document_hash(doc_id) is None:
            return None
        chunk_ids = [int(r[0]) for r in self._db.execute("SELECT id FROM chunks WHERE doc_id = ?", (doc_id,))]
        marks = ",".join("?" * len(chunk_ids))
        entities = {
            int(r[0])
            for r in self._db.execute(
                f"SELECT DISTINCT entity_id FROM entity_mentions WHERE chunk_id IN ({marks})", chunk_ids
            )
        }
        relations = {
            int(r[0])
            for r in self._db.execute(
                f"SELECT DISTINCT relation_id FROM relation_mentions WHERE chunk_id IN ({marks})", chunk_ids
            )
        }
        self._db.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))  # cascades to chunks, mentions
        return RemovedDocument(chunk_ids, entities, relations)

    def rename_document(self, old: str, new: str) -> bool:
        """Give document ``old`` the id ``new``, chunks and all (their ids kept, nothing else changes); False,
        changing nothing, when ``old`` is unknown or ``new`` is taken."""
        if self.document_hash(old) is None or self.document_hash(new) is not None:
            return False
        self._db.execute(
            "INSERT INTO documents(doc_id, title, source, content_hash, n_chars, ingested_at) "
            "SELECT ?, title, source, content_hash, n_chars, ingested_at FROM documents WHERE doc_id = ?",
            (new, old),
        )
        self._db.execute("UPDATE chunks SET doc_id = ? WHERE doc_id = ?", (new, old))
        self._db.execute("DELETE FROM documents WHERE doc_id = ?", (old,))
        return True

    def _entity_id(self, name: str, etype: str) -> int:
        key = normalise_name(name)
        row = self._db.execute("SELECT id FROM entities WHERE key = ?", (key,)).fetchone()
        if row is not None:
            return int(row[0])
        cur = self._db.execute(
            "INSERT INTO entities(key, name, type, description, vector) VALUES(?,?,?,?,?)", (key, name, etype, "", b"")
        )
        return int(cur.lastrowid or 0)

    def _relation_id(self, src: int, tgt: int) -> int:
        row = self._db.execute("SELECT id FROM relations WHERE src_id = ? AND tgt_id = ?", (src, tgt)).fetchone()
        if row is not None:
            return int(row[0])
        cur = self._db.execute(
            "INSERT INTO relations(src_id, tgt_id, description, keywords, weight, vector) VALUES(?,?,?,?,?,?)",
            (src, tgt, "", "", 0.0, b""),
        )
        return int(cur.lastrowid or 0)

    def entity_mentions(self, entity_id: int) -> list[tuple[str, str]]:
        """(type, description) of every mention of the entity, in chunk order."""
        rows = self._db.execute(
            "SELECT type, description FROM entity_mentions WHERE entity_id = ? ORDER BY chunk_id", (entity_id,)
        )
        return [(str(t), str(d)) for t, d in rows]

    def entity_name(self, entity_id: int) -> str:
        """The entity's name as first seen."""
        return str(self._db.execute("SELECT name FROM entities WHERE id = ?", (entity_id,)).fetchone()[0])

    def update_entity(self, entity_id: int, etype: str, description: str) -> None:
        self._db.execute("UPDATE entities SET type = ?, description = ? WHERE id = ?", (etype, description, entity_id))

    def set_entity_vector(self, entity_id: int, vector: Vector) -> None:
        self._db.execute("UPDATE entities SET vector = ? WHERE id = ?", (blob(vector), entity_id))

    def delete_entity(self, entity_id: int) -> list[int]:
        """Delete the entity and the relations that had it as an end; returns those relations' ids."""
        relation_ids = [
            int(r[0])
            for r in self._db.execute("SELECT id FROM relations WHERE src_id = ? OR tgt_id = ?", (entity_id, entity_id))
        ]
        self._db.execute("DELETE FROM entities WHERE id = ?", (entity_id,))
        return relation_ids

    def relation_mentions(self, relation_id: int) -> list[tuple[str, str, float]]:
        """(description, keywords, weight) of every mention of the relation, in chunk order."""
        rows = self._db.execute(
            "SELECT description, keywords, weight FROM relation_mentions WHERE relation_id = ? ORDER BY chunk_id",
            (relation_id,),
        )
        return [(str(d), str(k), float(w)) for d, k, w in rows]

    def relation_names(self, relation_id: int) -> tuple[str, str]:
        """The names of the relation's two ends (lower id first)."""
        row = self._db.execute(
            "SELECT a.name, b.name FROM relations r JOIN entities a ON a.id = r.src_id "
            "JOIN entities b ON b.id = r.tgt_id WHERE r.id = ?",
            (relation_id,),
        ).fetchone()
        return str(row[0]), str(row[1])

    def update_relation(self, relation_id: int, description: str, keywords: str, weight: float) -> None:
        self._db.execute(
            "UPDATE relations SET description = ?, keywords = ?, weight = ? WHERE id = ?",
            (description, keywords, weight, relation_id),
        )

    def set_relation_vector(self, relation_id: int, vector: Vector) -> None:
        self._db.execute("UPDATE relations SET vector = ? WHERE id = ?", (blob(vector), relation_id))

    def delete_relation(self, relation_id: int) -> None:
        self._db.execute("DELETE FROM relations WHERE id = ?", (relation_id,))

    def mark_graph_dirty(self) -> None:
        """The graph changed: its partition and summaries must be refreshed."""
        self.set_meta("graph_dirty", "1")
