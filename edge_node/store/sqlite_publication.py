"""Subgraphs, their summaries and the publication log (what the cloud has yet to receive) in the SQLite store."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

from edge_node.store.records import PublicationEntry, SubgraphRecord
from edge_node.store.sqlite_core import SqliteCore


class PublicationLog(SqliteCore):
    """The summary side of :class:`~edge_node.store.sqlite_store.SqliteStore` (one of its bases)."""

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
        """Position of the newest entry ever logged (0: none); sequence numbers never repeat."""
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
