"""The SQLite half of the edge store: documents, chunks, entities, relations, links, subgraphs, summaries,
the publication log and a model-answer cache, with all-or-nothing writes.

Every write goes through :meth:`SqliteStore.transaction`; a process killed at any point leaves the
database as it was before or after that transaction (SQLite WAL, synchronous=FULL).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from importlib import resources
from pathlib import Path

import numpy as np

from edge_node.store.records import (
    ChunkRow,
    DocumentInput,
    EntityRow,
    PublicationEntry,
    RelationRow,
    StoreCounts,
    StoreDelta,
    SubgraphRecord,
    Vector,
)
from shared.constants import SCHEMA_VERSION
from shared.errors import DocumentNotFoundError, StoreError
from shared.text import normalise_name, truncate_chars

EmbedFn = Callable[[Sequence[str]], np.ndarray]
DESCRIPTION_SEPARATOR = " | "


def _blob(vector: Vector) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()


class SqliteStore:
    """One edge's SQLite database."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(resources.files("edge_node.store").joinpath("schema.sql").read_text())
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path} is not a usable dgrag edge database: {exc}") from exc
        self._in_tx = False

    def close(self) -> None:
        self._db.close()

    # -- meta ---------------------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self._db.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def check_identity(self, edge_id: str, embedder: str, dim: int) -> None:
        """Record, or check against what is recorded, the schema, edge id and embedder of this store."""
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
                    raise StoreError(
                        f"data directory {self.path.parent} was built with {key}={stored!r}, not {value!r}; "
                        "use the same setting or a new --data-dir"
                    )

    @property
    def generation(self) -> int:
        """Counter bumped by every committed write; the faiss files record the generation they reflect."""
        return int(self.get_meta("generation") or 0)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """An immediate (write-locking) transaction that bumps :attr:`generation`; nested use joins it."""
        if self._in_tx:
            yield
            return
        self._db.execute("BEGIN IMMEDIATE")
        self._in_tx = True
        try:
            yield
            self.set_meta("generation", str(self.generation + 1))
            self._db.execute("COMMIT")
        except BaseException as exc:
            if self._db.in_transaction:  # SQLite may have rolled back itself (a full disk does)
                self._db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.OperationalError) and "full" in str(exc):
                raise StoreError(
                    f"the disk holding {self.path} is full ({exc}); free space and run again "
                    "(everything written before this document is kept)"
                ) from exc
            raise
        finally:
            self._in_tx = False

    # -- documents ----------------------------------------------------------------------------------------

    def document_hash(self, doc_id: str) -> str | None:
        row = self._db.execute("SELECT content_hash FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
        return None if row is None else str(row[0])

    def document_ids(self) -> list[str]:
        return [str(r[0]) for r in self._db.execute("SELECT doc_id FROM documents ORDER BY doc_id")]

    def write_document(self, doc: DocumentInput, embed: EmbedFn, max_chars: int) -> StoreDelta:
        """Store ``doc``, replacing any previous version of it everywhere, in one transaction."""
        with self.transaction():
            delta = self._remove_document(doc.doc_id, embed, max_chars, missing_ok=True)
            self._db.execute(
                "INSERT INTO documents(doc_id, title, source, content_hash, n_chars, ingested_at) VALUES(?,?,?,?,?,?)",
                (doc.doc_id, doc.title, doc.source, doc.content_hash, doc.n_chars, time.time()),
            )
            touched_entities: set[int] = set()
            touched_relations: set[int] = set()
            for chunk in doc.chunks:
                cur = self._db.execute(
                    'INSERT INTO chunks(doc_id, idx, start, "end", tokens, text, vector) VALUES(?,?,?,?,?,?,?)',
                    (doc.doc_id, chunk.idx, chunk.start, chunk.end, chunk.tokens, chunk.text, _blob(chunk.vector)),
                )
                chunk_id = int(cur.lastrowid or 0)
                delta.chunks.upserts[chunk_id] = chunk.vector
                ids: dict[str, int] = {}
                for ent in chunk.extraction.entities:
                    eid = self._entity_id(ent.name, ent.type)
                    ids[normalise_name(ent.name)] = eid
                    touched_entities.add(eid)
                    self._db.execute(
                        "INSERT OR IGNORE INTO entity_mentions(entity_id, chunk_id, type, description, origin) "
                        "VALUES(?,?,?,?,?)",
                        (eid, chunk_id, ent.type, ent.description, ent.origin),
                    )
                for rel in chunk.extraction.relations:
                    a, b = ids.get(normalise_name(rel.source)), ids.get(normalise_name(rel.target))
                    if a is None or b is None or a == b:
                        continue
                    rid = self._relation_id(min(a, b), max(a, b))
                    touched_relations.add(rid)
                    self._db.execute(
                        "INSERT OR IGNORE INTO relation_mentions(relation_id, chunk_id, description, keywords, weight,"
                        " origin) VALUES(?,?,?,?,?,?)",
                        (rid, chunk_id, rel.description, rel.keywords, rel.weight, rel.origin),
                    )
            delta.merge(self._refresh_entities(touched_entities, embed, max_chars))
            delta.merge(self._refresh_relations(touched_relations, embed, max_chars))
            self.set_meta("graph_dirty", "1")
        return delta

    def delete_document(self, doc_id: str, embed: EmbedFn, max_chars: int) -> StoreDelta:
        """Remove ``doc_id`` with its chunks, links, vectors and the entities/relations only it supported."""
        with self.transaction():
            delta = self._remove_document(doc_id, embed, max_chars, missing_ok=False)
            self.set_meta("graph_dirty", "1")
        return delta

    def _remove_document(self, doc_id: str, embed: EmbedFn, max_chars: int, missing_ok: bool) -> StoreDelta:
        delta = StoreDelta()
        if self.document_hash(doc_id) is None:
            if missing_ok:
                return delta
            raise DocumentNotFoundError(f"no document {doc_id!r} in this edge; `dgrag edge stats` lists the counts")
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
        delta.chunks.removed.update(chunk_ids)
        delta.merge(self._refresh_relations(relations, embed, max_chars))
        delta.merge(self._refresh_entities(entities, embed, max_chars))
        # Relations whose endpoint entity disappeared went with it (ON DELETE CASCADE).
        return delta

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

    def _refresh_entities(self, ids: set[int], embed: EmbedFn, max_chars: int) -> StoreDelta:
        """Recompute merged type/description/vector of ``ids``; delete those left without mentions."""
        delta = StoreDelta()
        texts: list[str] = []
        keep: list[int] = []
        for eid in sorted(ids):
            rows = self._db.execute(
                "SELECT type, description FROM entity_mentions WHERE entity_id = ? ORDER BY chunk_id", (eid,)
            ).fetchall()
            if not rows:
                relation_ids = [
                    int(r[0])
                    for r in self._db.execute("SELECT id FROM relations WHERE src_id = ? OR tgt_id = ?", (eid, eid))
                ]
                self._db.execute("DELETE FROM entities WHERE id = ?", (eid,))
                delta.entities.removed.add(eid)
                delta.relations.removed.update(relation_ids)
                continue
            etype = Counter(str(r[0]) for r in rows).most_common(1)[0][0]
            description = _merge_descriptions([str(r[1]) for r in rows], max_chars)
            name = str(self._db.execute("SELECT name FROM entities WHERE id = ?", (eid,)).fetchone()[0])
            self._db.execute("UPDATE entities SET type = ?, description = ? WHERE id = ?", (etype, description, eid))
            texts.append(f"{name} ({etype}): {description}")
            keep.append(eid)
        if keep:
            vectors = np.asarray(embed(texts), dtype=np.float32)
            for eid, vec in zip(keep, vectors, strict=True):
                self._db.execute("UPDATE entities SET vector = ? WHERE id = ?", (_blob(vec), eid))
                delta.entities.upserts[eid] = vec
        return delta

    def _refresh_relations(self, ids: set[int], embed: EmbedFn, max_chars: int) -> StoreDelta:
        delta = StoreDelta()
        texts: list[str] = []
        keep: list[int] = []
        for rid in sorted(ids):
            rows = self._db.execute(
                "SELECT description, keywords, weight FROM relation_mentions WHERE relation_id = ? ORDER BY chunk_id",
                (rid,),
            ).fetchall()
            if not rows:
                self._db.execute("DELETE FROM relations WHERE id = ?", (rid,))
                delta.relations.removed.add(rid)
                continue
            description = _merge_descriptions([str(r[0]) for r in rows], max_chars)
            keywords = ", ".join(dict.fromkeys(k.strip() for r in rows for k in str(r[1]).split(",") if k.strip()))
            weight = float(sum(float(r[2]) for r in rows))
            self._db.execute(
                "UPDATE relations SET description = ?, keywords = ?, weight = ? WHERE id = ?",
                (description, keywords[:200], weight, rid),
            )
            names = self._db.execute(
                "SELECT a.name, b.name FROM relations r JOIN entities a ON a.id = r.src_id "
                "JOIN entities b ON b.id = r.tgt_id WHERE r.id = ?",
                (rid,),
            ).fetchone()
            texts.append(f"{names[0]} — {names[1]}: {description} {keywords}".strip())
            keep.append(rid)
        if keep:
            vectors = np.asarray(embed(texts), dtype=np.float32)
            for rid, vec in zip(keep, vectors, strict=True):
                self._db.execute("UPDATE relations SET vector = ? WHERE id = ?", (_blob(vec), rid))
                delta.relations.upserts[rid] = vec
        return delta

    # -- reads --------------------------------------------------------------------------------------------

    def counts(self) -> StoreCounts:
        def one(sql: str) -> int:
            return int(self._db.execute(sql).fetchone()[0])

        return StoreCounts(
            documents=one("SELECT COUNT(*) FROM documents"),
            chunks=one("SELECT COUNT(*) FROM chunks"),
            entities=one("SELECT COUNT(*) FROM entities"),
            relations=one("SELECT COUNT(*) FROM relations"),
            subgraphs=one("SELECT COUNT(*) FROM subgraphs"),
            summaries=one("SELECT COUNT(*) FROM summaries"),
            pending_publications=one("SELECT COUNT(*) FROM publication_log WHERE published_at IS NULL"),
        )

    def vectors(self, table: str) -> Iterator[tuple[int, bytes]]:
        """(id, float32 bytes) of every row of ``table`` (chunks, entities or relations)."""
        if table not in ("chunks", "entities", "relations"):
            raise ValueError(f"no vectors in table {table!r}")
        yield from ((int(i), bytes(v)) for i, v in self._db.execute(f"SELECT id, vector FROM {table}"))

    def entities(self) -> list[EntityRow]:
        return [
            EntityRow(int(r[0]), r[1], r[2], r[3], r[4])
            for r in self._db.execute("SELECT id, key, name, type, description FROM entities ORDER BY id")
        ]

    def relations(self) -> list[RelationRow]:
        return [
            RelationRow(int(r[0]), int(r[1]), int(r[2]), r[3], r[4], float(r[5]))
            for r in self._db.execute(
                "SELECT id, src_id, tgt_id, description, keywords, weight FROM relations ORDER BY id"
            )
        ]

    def entity_chunk_links(self) -> list[tuple[int, int]]:
        """(entity id, chunk id) for every mention."""
        return [
            (int(a), int(b))
            for a, b in self._db.execute("SELECT entity_id, chunk_id FROM entity_mentions ORDER BY entity_id, chunk_id")
        ]

    def chunks_by_id(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        """The chunks with these ids (unknown ids are left out)."""
        out: dict[int, ChunkRow] = {}
        for start in range(0, len(ids), 500):
            part = list(ids[start : start + 500])
            marks = ",".join("?" * len(part))
            for r in self._db.execute(f"SELECT id, doc_id, idx, tokens, text FROM chunks WHERE id IN ({marks})", part):
                out[int(r[0])] = ChunkRow(int(r[0]), str(r[1]), int(r[2]), int(r[3]), str(r[4]))
        return out

    def chunk_rows(self) -> list[tuple[int, str, int]]:
        """(chunk id, doc id, index in document) of every chunk."""
        return [
            (int(a), str(b), int(c)) for a, b, c in self._db.execute("SELECT id, doc_id, idx FROM chunks ORDER BY id")
        ]

    def chunk_texts(self) -> Iterator[str]:
        """The text of every chunk (together, with their overlaps, every word of every document)."""
        for (text,) in self._db.execute("SELECT text FROM chunks"):
            yield str(text)

    def mention_stats(self) -> dict[str, int]:
        """Mentions per origin (slm, heuristic, cooccurrence), for reports."""
        out: dict[str, int] = {}
        for table in ("entity_mentions", "relation_mentions"):
            for origin, count in self._db.execute(f"SELECT origin, COUNT(*) FROM {table} GROUP BY origin"):
                out[f"{table}.{origin}"] = int(count)
        out["chunks_without_entities"] = int(
            self._db.execute(
                "SELECT COUNT(*) FROM chunks c"
                " WHERE NOT EXISTS (SELECT 1 FROM entity_mentions m WHERE m.chunk_id = c.id)"
            ).fetchone()[0]
        )
        return out

    # -- subgraphs, summaries, publication ----------------------------------------------------------------

    def subgraphs(self) -> list[SubgraphRecord]:
        rows = self._db.execute(
            "SELECT s.id, s.version, s.fingerprint, s.members, m.text, m.top_entities, m.n_entities, m.n_relations,"
            " s.updated_at FROM subgraphs s JOIN summaries m ON m.subgraph_id = s.id ORDER BY s.id"
        )
        return [
            SubgraphRecord(
                r[0],
                int(r[1]),
                r[2],
                tuple(json.loads(r[3])),
                r[4],
                tuple(json.loads(r[5])),
                int(r[6]),
                int(r[7]),
                float(r[8]),
            )
            for r in rows
        ]

    def save_subgraphs(self, upserts: Sequence[SubgraphRecord], deletions: Sequence[tuple[str, int]]) -> None:
        """Write changed subgraphs and their summaries, delete the vanished ones (``(id, tombstone version)``),
        log every change for publication and clear the graph-dirty flag, in one transaction."""
        now = time.time()
        with self.transaction():
            for sid, version in deletions:
                self._db.execute("DELETE FROM subgraphs WHERE id = ?", (sid,))
                self._db.execute(
                    "INSERT INTO publication_log(summary_id, version, op, created_at) VALUES(?,?,'delete',?)",
                    (sid, version, now),
                )
            for sg in upserts:
                self._db.execute(
                    "INSERT INTO subgraphs(id, version, fingerprint, members, updated_at) VALUES(?,?,?,?,?) "
                    "ON CONFLICT(id) DO UPDATE SET version=excluded.version, fingerprint=excluded.fingerprint, "
                    "members=excluded.members, updated_at=excluded.updated_at",
                    (sg.id, sg.version, sg.fingerprint, json.dumps(list(sg.members)), now),
                )
                self._db.execute(
                    "INSERT INTO summaries(subgraph_id, version, text, top_entities, n_entities, n_relations,"
                    " updated_at)"
                    " VALUES(?,?,?,?,?,?,?) ON CONFLICT(subgraph_id) DO UPDATE SET version=excluded.version, "
                    "text=excluded.text, top_entities=excluded.top_entities, n_entities=excluded.n_entities, "
                    "n_relations=excluded.n_relations, updated_at=excluded.updated_at",
                    (
                        sg.id,
                        sg.version,
                        sg.summary,
                        json.dumps(list(sg.top_entities)),
                        sg.n_entities,
                        sg.n_relations,
                        now,
                    ),
                )
                self._db.execute(
                    "INSERT INTO publication_log(summary_id, version, op, created_at) VALUES(?,?,'upsert',?)",
                    (sg.id, sg.version, now),
                )
            self.set_meta("graph_dirty", "0")

    def graph_dirty(self) -> bool:
        return self.get_meta("graph_dirty") == "1"

    def max_tombstone_version(self, summary_id: str) -> int:
        """Highest version ever logged for ``summary_id`` (0 if never), so a reused id never goes backwards."""
        row = self._db.execute(
            "SELECT MAX(version) FROM publication_log WHERE summary_id = ?", (summary_id,)
        ).fetchone()
        return int(row[0] or 0)

    def pending_publications(self) -> list[PublicationEntry]:
        return [
            PublicationEntry(int(r[0]), r[1], int(r[2]), r[3], float(r[4]))
            for r in self._db.execute(
                "SELECT seq, summary_id, version, op, created_at FROM publication_log WHERE published_at IS NULL "
                "ORDER BY seq"
            )
        ]

    def last_publication_seq(self) -> int:
        """Position of the newest entry in the publication log (0 when empty)."""
        row = self._db.execute("SELECT MAX(seq) FROM publication_log").fetchone()
        return int(row[0] or 0)

    def publications_after(self, seq: int) -> list[PublicationEntry]:
        """Log entries newer than ``seq``, oldest first."""
        return [
            PublicationEntry(int(r[0]), r[1], int(r[2]), r[3], float(r[4]))
            for r in self._db.execute(
                "SELECT seq, summary_id, version, op, created_at FROM publication_log WHERE seq > ? ORDER BY seq",
                (seq,),
            )
        ]

    def mark_published(self, up_to_seq: int) -> None:
        with self.transaction():
            self._db.execute(
                "UPDATE publication_log SET published_at = ? WHERE seq <= ? AND published_at IS NULL",
                (time.time(), up_to_seq),
            )

    # -- names the SLM typed -------------------------------------------------------------------------------

    def name_types(self) -> dict[str, str]:
        """Normalised name -> the type the SLM gave it first (or the extractor's rejection mark).

        A store built before this memory existed has none; its SLM-typed entity mentions stand in (without
        the rejections, which were never stored)."""
        known = {str(k): str(t) for k, t in self._db.execute("SELECT key, type FROM name_types")}
        if known:
            return known
        rows = self._db.execute(
            "SELECT e.key, m.type FROM entity_mentions m JOIN entities e ON e.id = m.entity_id "
            "WHERE m.origin = 'slm' ORDER BY m.chunk_id"
        )
        for key, etype in rows:
            known.setdefault(str(key), str(etype))
        return known

    def remember_name_types(self, items: Sequence[tuple[str, str]]) -> None:
        """Keep what the SLM said of new names; a name already known keeps its first type."""
        sql = "INSERT OR IGNORE INTO name_types(key, type) VALUES(?, ?)"
        if self._in_tx:  # part of the caller's write
            self._db.executemany(sql, items)
            return
        self._db.execute("BEGIN IMMEDIATE")  # one commit for the chunk's names, not one per name
        try:
            self._db.executemany(sql, items)
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    # -- model-answer cache -------------------------------------------------------------------------------

    def cache_get(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM llm_cache WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def cache_put(self, key: str, value: str) -> None:
        # Outside a write transaction this commits at once: the answer survives a crash of the document.
        self._db.execute("INSERT OR REPLACE INTO llm_cache(key, value) VALUES(?, ?)", (key, value))


def _merge_descriptions(descriptions: list[str], max_chars: int) -> str:
    merged = DESCRIPTION_SEPARATOR.join(dict.fromkeys(d.strip() for d in descriptions if d.strip()))
    return truncate_chars(merged, max_chars)
