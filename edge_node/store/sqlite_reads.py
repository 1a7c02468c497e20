"""Reads of the SQLite store that the graph, the vector indexes, retrieval and reports use."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from edge_node.store.records import ChunkRow, EntityRow, RelationRow, StoreCounts
from edge_node.store.sqlite_core import SqliteCore


class GraphReads(SqliteCore):
    """The read side of :class:`~edge_node.store.sqlite_store.SqliteStore` (one of its bases)."""

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
        """(id, float32 bytes; empty while a row has no vector) of every row of ``table`` (chunks, entities or
        relations); another table raises ValueError."""
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

    def chunk_texts(self) -> Iterator[tuple[int, str]]:
        """(chunk id, text) of every chunk (together, with their overlaps, every word of every document)."""
        for chunk_id, text in self._db.execute("SELECT id, text FROM chunks"):
            yield int(chunk_id), str(text)

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
