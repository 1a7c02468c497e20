"""What may leave an edge, and the audit log of everything that did (what, to whom, when, bytes).

The policy turns a local retrieval into the knowledge sent to the cloud: raw chunks, entity descriptions
and relation descriptions can each be withheld. The audit log is an append-only JSON-lines file in the
edge's data directory, flushed and fsynced per line, so it survives a crash of the edge.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from edge_node.retrieval import Retrieval
from shared.config import PrivacyConfig
from shared.knowledge import EdgeKnowledge, KnowledgeChunk, KnowledgeEntity, KnowledgeRelation

AUDIT_FILE = "audit.jsonl"


def knowledge_for_cloud(edge_id: str, retrieval: Retrieval, policy: PrivacyConfig) -> EdgeKnowledge:
    """The part of ``retrieval`` this edge's policy lets leave."""
    chunks = tuple(
        KnowledgeChunk(c.doc_id, c.id, c.text[: policy.max_chunk_chars], c.score, c.tokens) for c in retrieval.chunks
    )
    entities = tuple(KnowledgeEntity(e.name, e.type, e.description, e.score) for e in retrieval.entities)
    relations = tuple(KnowledgeRelation(r.source, r.target, r.description, r.score) for r in retrieval.relations)
    return EdgeKnowledge(
        edge_id=edge_id,
        entities=entities if policy.share_entities else (),
        relations=relations if policy.share_relations else (),
        chunks=chunks if policy.share_chunks else (),
        evidence=retrieval.evidence.score,
        retrieval_seconds=sum(retrieval.timings.values()),
    )


class AuditLog:
    """Append-only record of what left this edge."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / AUDIT_FILE
        self._lock = threading.Lock()

    def record(self, what: str, to: str, n_bytes: int, **detail: Any) -> None:
        line = json.dumps({"ts": round(time.time(), 3), "what": what, "to": to, "bytes": n_bytes, **detail})
        with self._lock, self.path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())

    def entries(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines() if line.strip()]

    def bytes_sent(self) -> int:
        return sum(int(e.get("bytes", 0)) for e in self.entries())
