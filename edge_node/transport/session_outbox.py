"""Everything an edge sends on its session to the cloud, in one place: each message is built
(:mod:`shared.transport.serde_session`), recorded in the edge's audit log with its size on the wire and what it
carried, and queued for the stream. What the audit log says left is what was sent, byte for byte."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from edge_node.policy.audit import SUMMARY_DELTA, SUMMARY_SYNC, AuditLog
from edge_node.policy.outbound import OutboundPolicy
from edge_node.policy.privacy import Outbound
from shared.core.knowledge import ProbeScores, SummaryChanges
from shared.core.query_vectors import QueryVectors
from shared.proto.dgrag.v1 import cloud_pb2
from shared.transport import serde_session

Request = cloud_pb2.RetrievalRequest | cloud_pb2.ProbeRequest


class SessionOutbox:
    """One session's outgoing messages (``queue`` feeds the stream; None closes it)."""

    def __init__(
        self, audit: AuditLog, policy: OutboundPolicy, queue: asyncio.Queue[cloud_pb2.EdgeMessage | None]
    ) -> None:
        self._audit = audit
        self._policy = policy
        self.queue = queue

    def hello(self, edge_id: str, software_version: str) -> None:
        """Who this edge is (nothing of its documents): not audited."""
        unnamed, answers = self._policy.unnamed, self._policy.privacy.answers
        self.queue.put_nowait(serde_session.hello(edge_id, software_version, unnamed=unnamed, answers=answers))

    def heartbeat(self) -> None:
        self.queue.put_nowait(serde_session.heartbeat(time.time()))

    def summaries(self, changes: SummaryChanges) -> None:
        """A full sync or a delta of this edge's summaries."""
        message = serde_session.summary_changes(changes)
        content = self._policy.audited_texts([c.text for c in changes.upserts])
        kind = SUMMARY_SYNC if changes.full else SUMMARY_DELTA
        upserts, tombstones = [c.id for c in changes.upserts], [t.id for t in changes.tombstones]
        self._send(message, kind, upserts=upserts, tombstones=tombstones, **content)

    def retrieval_reply(
        self, request: cloud_pb2.RetrievalRequest, outbound: Outbound, given: QueryVectors | None
    ) -> None:
        """This edge's knowledge for the cloud's request, as its privacy policy let it leave."""
        knowledge = outbound.knowledge
        content = self._policy.audited_knowledge(knowledge)
        self._send(
            serde_session.retrieval_reply(request.request_id, knowledge),
            "retrieval_reply",
            question=self._policy.audited_question(request.question),
            chunks=[f"{c.doc_id}#{c.chunk_id}" for c in knowledge.chunks],
            entities=len(knowledge.entities),
            relations=len(knowledge.relations),
            withheld=outbound.withheld,
            **content,
            **steered_by(given),
        )

    def probe_reply(self, request: cloud_pb2.ProbeRequest, scores: ProbeScores, given: QueryVectors | None) -> None:
        """Scores only."""
        self._send(
            serde_session.probe_reply(request.request_id, scores),
            "probe_reply",
            question=self._policy.audited_question(request.question),
            score=round(scores.score, 4),
            terms=round(scores.term_coverage, 4),
            lexical=round(scores.lexical, 4),
            **steered_by(given),
        )

    def error(self, request: Request, error: str) -> None:
        """A fixed, document-free answer to a request this edge could not serve."""
        probe = isinstance(request, cloud_pb2.ProbeRequest)
        message = serde_session.error_reply(request.request_id, error, probe=probe)
        self._send(message, "probe_error" if probe else "retrieval_error", error=error)

    def _send(self, message: cloud_pb2.EdgeMessage, kind: str, **details: Any) -> None:
        self._audit.record(kind, "cloud", message.ByteSize(), **details)
        self.queue.put_nowait(message)


def steered_by(given: QueryVectors | None) -> dict[str, int]:
    """For the audit: the requester's vectors (not this edge's embedding of the question) chose what was retrieved,
    so the question text alone does not show what the retrieval looked for."""
    return {} if given is None else {"requester_vectors": len(given.texts)}
